const stepRaw = [
  { n: 16, thr: 3538, thr_lo: 3502, thr_hi: 3574 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 700000, "target_return": 18.0, "return_window": 20}, "date": "2026-11-30T07:28:19.113867+00:00", "group": "agent.num_minibatches=8, schedule.total_env_steps=700000", "frameskip": 5, "unit": "env_steps/s"};
