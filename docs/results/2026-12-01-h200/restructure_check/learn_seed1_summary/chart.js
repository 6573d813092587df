const asyncRaw = [
  { n: 32, thr: 15468, thr_lo: -3426, thr_hi: 34362 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "max_seconds": 240.0}, "date": "2026-12-01T03:00:55.939571+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
