const stepRaw = [
  { n: 64, thr: 8336, thr_lo: 8336, thr_hi: 8336 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T07:15:02.537957+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
