const stepRaw = [
  { n: 32, thr: 4812, thr_lo: 4645, thr_hi: 4979 },
];

const asyncRaw = [
  { n: 32, thr: 8372, thr_lo: 6814, thr_hi: 9930 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "max_seconds": 505.0}, "date": "2026-11-30T10:29:20.961452+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
