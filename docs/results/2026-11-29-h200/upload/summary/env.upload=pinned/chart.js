const stepRaw = [
  { n: 8, thr: 3362, thr_lo: 1940, thr_hi: 4784 },
  { n: 64, thr: 12308, thr_lo: 9708, thr_hi: 14908 },
];

const recvRaw = [
  { n: 8, thr: 4054, thr_lo: 3667, thr_hi: 4441 },
  { n: 64, thr: 12910, thr_lo: 9531, thr_hi: 16290 },
];

const asyncRaw = [
  { n: 8, thr: 4560, thr_lo: 3626, thr_hi: 5494 },
  { n: 64, thr: 17737, thr_lo: 17163, thr_hi: 18312 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 2, "bench_steps": 500, "warmup": 64, "profile": true}, "date": "2026-11-29T22:36:04.940550+00:00", "group": "env.upload=pinned", "frameskip": 5, "unit": "env_steps/s"};
