const envOnlyRaw = [
  { n: 1, thr: 1265, thr_lo: 1186, thr_hi: 1344 },
  { n: 8, thr: 8502, thr_lo: 6963, thr_hi: 10041 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:07:42.538000+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
