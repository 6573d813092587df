const asyncRaw = [
  { n: 64, thr: 16341, thr_lo: 14780, thr_hi: 17901 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 120.0}, "date": "2026-12-01T06:24:48.146838+00:00", "group": "agent.learning_rate=0.00025, agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
