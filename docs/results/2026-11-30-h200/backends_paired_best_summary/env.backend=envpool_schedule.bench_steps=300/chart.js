const asyncRaw = [
  { n: 256, thr: 20960, thr_lo: 20960, thr_hi: 20960 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true}, "date": "2026-11-30T07:12:47.024226+00:00", "group": "env.backend=envpool, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"};
