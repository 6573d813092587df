const stepRaw = [
  { n: 1, thr: 516, thr_lo: 480, thr_hi: 552 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:52:21.966967+00:00", "group": "agent.runtime=compiled", "frameskip": 5, "unit": "env_steps/s"};
