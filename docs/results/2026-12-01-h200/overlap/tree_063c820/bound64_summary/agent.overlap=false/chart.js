const envOnlyRaw = [
  { n: 64, thr: 25595, thr_lo: 24548, thr_hi: 26641 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 2, "bench_steps": 1500, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T08:32:28.098707+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
