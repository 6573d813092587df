const stepRaw = [
  { n: 8, thr: 2934, thr_lo: 2934, thr_hi: 2934 },
  { n: 64, thr: 8107, thr_lo: 8107, thr_hi: 8107 },
];

const envOnlyRaw = [
  { n: 8, thr: 5205, thr_lo: 5205, thr_hi: 5205 },
  { n: 64, thr: 8094, thr_lo: 8094, thr_hi: 8094 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:40:39.844960+00:00", "group": "env.backend=gymnasium", "frameskip": 5, "unit": "env_steps/s"};
