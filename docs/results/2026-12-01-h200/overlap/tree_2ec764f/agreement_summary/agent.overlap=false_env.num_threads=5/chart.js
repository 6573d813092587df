const asyncRaw = [
  { n: 64, thr: 5481, thr_lo: 5465, thr_hi: 5497 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": false, "max_seconds": 300.0}, "date": "2026-12-01T17:57:04.028405+00:00", "group": "agent.overlap=false, env.num_threads=5", "frameskip": 5, "unit": "env_steps/s"};
