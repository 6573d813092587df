const stepRaw = [
  { n: 256, thr: 8732, thr_lo: 8264, thr_hi: 9200 },
];

const recvRaw = [
  { n: 256, thr: 8521, thr_lo: 8118, thr_hi: 8925 },
];

const envOnlyRaw = [
  { n: 256, thr: 9259, thr_lo: 5581, thr_hi: 12936 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:49:57.433651+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"};
