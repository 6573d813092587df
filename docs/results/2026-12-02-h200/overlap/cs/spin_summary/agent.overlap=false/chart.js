const envOnlyRaw = [
  { n: 1, thr: 1162, thr_lo: 1126, thr_hi: 1197 },
  { n: 8, thr: 7349, thr_lo: 6952, thr_hi: 7746 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:32:14.049579+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
