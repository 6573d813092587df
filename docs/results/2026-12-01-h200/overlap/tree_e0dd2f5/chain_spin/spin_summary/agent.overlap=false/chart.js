const envOnlyRaw = [
  { n: 1, thr: 1296, thr_lo: 1191, thr_hi: 1402 },
  { n: 8, thr: 7672, thr_lo: 7011, thr_hi: 8333 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:07:42.538000+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
