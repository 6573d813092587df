const stepRaw = [
  { n: 32, thr: 11230, thr_lo: 9966, thr_hi: 12493 },
];

const asyncRaw = [
  { n: 32, thr: 13981, thr_lo: 13981, thr_hi: 13981 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "max_seconds": 240.0}, "date": "2026-11-30T10:19:57.975647+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
