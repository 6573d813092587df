const asyncRaw = [
  { n: 256, thr: 24276, thr_lo: 24276, thr_hi: 24276 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-12-01T03:57:43.990566+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
