const stepRaw = [
  { n: 1, thr: 591, thr_lo: 490, thr_hi: 693 },
  { n: 8, thr: 3763, thr_lo: 3483, thr_hi: 4043 },
  { n: 64, thr: 13349, thr_lo: 12472, thr_hi: 14226 },
  { n: 256, thr: 17386, thr_lo: 15951, thr_hi: 18820 },
];

const recvRaw = [
  { n: 1, thr: 599, thr_lo: 487, thr_hi: 710 },
  { n: 8, thr: 4350, thr_lo: 4179, thr_hi: 4521 },
  { n: 64, thr: 14564, thr_lo: 13377, thr_hi: 15751 },
  { n: 256, thr: 17859, thr_lo: 16280, thr_hi: 19438 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 500, "warmup": 64}, "date": "2026-11-29T21:26:16.975555+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
