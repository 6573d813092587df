const asyncRaw = [
  { n: 256, thr: 24601, thr_lo: 3638, thr_hi: 45564 },
];

const envOnlyRaw = [
  { n: 256, thr: 32872, thr_lo: 11420, thr_hi: 54324 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T13:30:06.734973+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
