const asyncRaw = [
  { n: 64, thr: 5488, thr_lo: 5212, thr_hi: 5763 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 440.0}, "date": "2026-12-01T15:19:44.127955+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
