const asyncRaw = [
  { n: 32, thr: 14469, thr_lo: 14469, thr_hi: 14469 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 2500000, "target_return": 18.0, "return_window": 20}, "date": "2026-11-30T07:23:59.432245+00:00", "group": "agent.num_minibatches=16, schedule.total_env_steps=2500000", "frameskip": 5, "unit": "env_steps/s"};
