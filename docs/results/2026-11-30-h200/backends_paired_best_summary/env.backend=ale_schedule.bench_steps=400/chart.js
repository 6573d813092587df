const asyncRaw = [
  { n: 64, thr: 21798, thr_lo: 21798, thr_hi: 21798 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T07:14:10.856776+00:00", "group": "env.backend=ale, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
