const asyncRaw = [
  { n: 64, thr: 20060, thr_lo: 19600, thr_hi: 20519 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T18:06:03.829854+00:00", "group": "env.num_threads=16", "frameskip": 5, "unit": "env_steps/s"};
