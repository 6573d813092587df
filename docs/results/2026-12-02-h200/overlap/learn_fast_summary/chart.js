const asyncRaw = [
  { n: 64, thr: 18817, thr_lo: 15633, thr_hi: 22000 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 240.0}, "date": "2026-12-02T05:55:03.081263+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
