const asyncRaw = [
  { n: 256, thr: 24511, thr_lo: 23678, thr_hi: 25343 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 2, "bench_steps": 600, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T08:46:03.298148+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
