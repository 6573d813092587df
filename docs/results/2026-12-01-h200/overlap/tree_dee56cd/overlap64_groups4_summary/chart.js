const asyncRaw = [
  { n: 64, thr: 21921, thr_lo: 20970, thr_hi: 22872 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 5, "bench_steps": 3000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T12:43:48.511165+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
