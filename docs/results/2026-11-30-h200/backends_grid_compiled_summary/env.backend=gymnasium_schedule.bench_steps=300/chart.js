const stepRaw = [
  { n: 256, thr: 9226, thr_lo: 2806, thr_hi: 15645 },
];

const recvRaw = [
  { n: 256, thr: 9479, thr_lo: 6634, thr_hi: 12324 },
];

const envOnlyRaw = [
  { n: 256, thr: 11994, thr_lo: 6517, thr_hi: 17472 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T13:01:42.538991+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"};
