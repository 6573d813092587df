const envOnlyRaw = [
  { n: 1, thr: 1378, thr_lo: 1293, thr_hi: 1462 },
  { n: 8, thr: 6755, thr_lo: 5149, thr_hi: 8362 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:03:43.233784+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
