const asyncRaw = [
  { n: 256, thr: 21684, thr_lo: 20743, thr_hi: 22624 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 600, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T11:11:44.404170+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
