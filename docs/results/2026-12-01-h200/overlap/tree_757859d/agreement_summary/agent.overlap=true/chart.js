const asyncRaw = [
  { n: 64, thr: 7319, thr_lo: 6991, thr_hi: 7647 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 290.0}, "date": "2026-12-01T15:34:43.185570+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
