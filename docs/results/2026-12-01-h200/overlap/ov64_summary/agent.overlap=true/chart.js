const asyncRaw = [
  { n: 64, thr: 20010, thr_lo: 14387, thr_hi: 25634 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-12-01T03:49:05.075958+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
