const asyncRaw = [
  { n: 64, thr: 20352, thr_lo: 18737, thr_hi: 21966 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 240.0}, "date": "2026-12-01T06:18:23.973497+00:00", "group": "agent.learning_rate=0.00025, agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
