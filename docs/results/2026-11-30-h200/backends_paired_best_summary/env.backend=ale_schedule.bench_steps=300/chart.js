const asyncRaw = [
  { n: 256, thr: 21930, thr_lo: 21930, thr_hi: 21930 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true}, "date": "2026-11-30T07:12:21.736778+00:00", "group": "env.backend=ale, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"};
