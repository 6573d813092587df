const stepRaw = [
  { n: 256, thr: 8900, thr_lo: 8900, thr_hi: 8900 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true}, "date": "2026-11-30T07:13:35.563350+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"};
