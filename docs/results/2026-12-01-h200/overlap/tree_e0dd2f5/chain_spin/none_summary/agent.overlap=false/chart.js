const envOnlyRaw = [
  { n: 1, thr: 1280, thr_lo: 1099, thr_hi: 1460 },
  { n: 8, thr: 6349, thr_lo: 5833, thr_hi: 6864 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:06:26.419937+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
