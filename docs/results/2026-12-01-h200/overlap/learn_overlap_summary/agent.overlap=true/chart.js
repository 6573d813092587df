const asyncRaw = [
  { n: 32, thr: 3032, thr_lo: 2943, thr_hi: 3120 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "max_seconds": 190.0}, "date": "2026-12-01T03:54:56.343530+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
