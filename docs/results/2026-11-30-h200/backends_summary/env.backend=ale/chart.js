const stepRaw = [
  { n: 8, thr: 6416, thr_lo: 6416, thr_hi: 6416 },
  { n: 64, thr: 15356, thr_lo: 15356, thr_hi: 15356 },
];

const asyncRaw = [
  { n: 8, thr: 6075, thr_lo: 6075, thr_hi: 6075 },
  { n: 64, thr: 21808, thr_lo: 21808, thr_hi: 21808 },
];

const envOnlyGroups1Raw = [
  { n: 8, thr: 7207, thr_lo: 7207, thr_hi: 7207 },
  { n: 64, thr: 14193, thr_lo: 14193, thr_hi: 14193 },
];

const envOnlyGroups2Raw = [
  { n: 8, thr: 8620, thr_lo: 8620, thr_hi: 8620 },
  { n: 64, thr: 21983, thr_lo: 21983, thr_hi: 21983 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:41:12.271147+00:00", "group": "env.backend=ale", "frameskip": 5, "unit": "env_steps/s"};
