const stepRaw = [
  { n: 1, thr: 1038, thr_lo: 912, thr_hi: 1164 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:52:24.697595+00:00", "group": "agent.runtime=graphed", "frameskip": 5, "unit": "env_steps/s"};
