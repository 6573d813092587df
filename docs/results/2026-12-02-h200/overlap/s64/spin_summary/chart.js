const asyncRaw = [
  { n: 64, thr: 19462, thr_lo: 18536, thr_hi: 20388 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T01:29:51.786416+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
