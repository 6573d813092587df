const stepRaw = [
  { n: 8, thr: 4034, thr_lo: 3236, thr_hi: 4832 },
  { n: 64, thr: 13211, thr_lo: 11978, thr_hi: 14445 },
];

const recvRaw = [
  { n: 8, thr: 3781, thr_lo: 3420, thr_hi: 4142 },
  { n: 64, thr: 12610, thr_lo: 11879, thr_hi: 13342 },
];

const asyncGroups2Raw = [
  { n: 8, thr: 4626, thr_lo: 3872, thr_hi: 5381 },
  { n: 64, thr: 18771, thr_lo: 17366, thr_hi: 20176 },
];

const asyncGroups4Raw = [
  { n: 8, thr: 3472, thr_lo: 2545, thr_hi: 4399 },
];

const asyncGroups8Raw = [
  { n: 8, thr: 1933, thr_lo: 802, thr_hi: 3065 },
];

const envOnlyRaw = [
  { n: 8, thr: 8680, thr_lo: 7625, thr_hi: 9734 },
  { n: 64, thr: 20106, thr_lo: 18355, thr_hi: 21858 },
];

const agentOnlyGroups1Raw = [
  { n: 8, thr: 13355, thr_lo: 12355, thr_hi: 14355 },
  { n: 64, thr: 78223, thr_lo: 70866, thr_hi: 85580 },
];

const agentOnlyGroups2Raw = [
  { n: 8, thr: 8253, thr_lo: 5161, thr_hi: 11344 },
  { n: 64, thr: 51485, thr_lo: 43265, thr_hi: 59704 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 500, "warmup": 64, "profile": true}, "date": "2026-11-29T22:24:30.791342+00:00", "group": "schedule.bench_steps=500, schedule.reps=3", "frameskip": 5, "unit": "env_steps/s"};
