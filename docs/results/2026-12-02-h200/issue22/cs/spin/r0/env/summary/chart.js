const envOnlyRaw = [
  { n: 1, thr: 1168, thr_lo: 1125, thr_hi: 1211 },
  { n: 8, thr: 7576, thr_lo: 7082, thr_hi: 8070 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:28:29.185795+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
