const asyncRaw = [
  { n: 64, thr: 22081, thr_lo: 21479, thr_hi: 22684 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 150.0}, "date": "2026-12-01T12:54:36.784059+00:00", "group": "agent.learning_rate=0.0005, agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
