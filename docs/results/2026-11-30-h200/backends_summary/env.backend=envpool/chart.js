const stepRaw = [
  { n: 8, thr: 5219, thr_lo: 5219, thr_hi: 5219 },
  { n: 64, thr: 14521, thr_lo: 14521, thr_hi: 14521 },
];

const asyncRaw = [
  { n: 8, thr: 6292, thr_lo: 6292, thr_hi: 6292 },
  { n: 64, thr: 20093, thr_lo: 20093, thr_hi: 20093 },
];

const envOnlyGroups1Raw = [
  { n: 8, thr: 7041, thr_lo: 7041, thr_hi: 7041 },
  { n: 64, thr: 13390, thr_lo: 13390, thr_hi: 13390 },
];

const envOnlyGroups2Raw = [
  { n: 8, thr: 6165, thr_lo: 6165, thr_hi: 6165 },
  { n: 64, thr: 23899, thr_lo: 23899, thr_hi: 23899 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:41:17.252457+00:00", "group": "env.backend=envpool", "frameskip": 5, "unit": "env_steps/s"};
