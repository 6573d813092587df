const asyncRaw = [
  { n: 64, thr: 2619, thr_lo: 2535, thr_hi: 2702 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": false, "max_seconds": 430.0}, "date": "2026-12-01T20:27:55.174317+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
