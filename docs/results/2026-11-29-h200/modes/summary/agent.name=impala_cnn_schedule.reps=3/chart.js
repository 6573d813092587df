const stepRaw = [
  { n: 1, thr: 537, thr_lo: 524, thr_hi: 550 },
  { n: 8, thr: 3075, thr_lo: 2943, thr_hi: 3208 },
  { n: 64, thr: 6461, thr_lo: 6384, thr_hi: 6538 },
  { n: 256, thr: 7093, thr_lo: 7011, thr_hi: 7176 },
];

const recvRaw = [
  { n: 1, thr: 547, thr_lo: 424, thr_hi: 670 },
  { n: 8, thr: 3315, thr_lo: 2957, thr_hi: 3673 },
  { n: 64, thr: 6512, thr_lo: 6151, thr_hi: 6872 },
  { n: 256, thr: 6905, thr_lo: 6670, thr_hi: 7140 },
];

const asyncRaw = [
  { n: 8, thr: 3375, thr_lo: 3034, thr_hi: 3716 },
  { n: 64, thr: 7671, thr_lo: 7392, thr_hi: 7950 },
  { n: 256, thr: 7655, thr_lo: 7473, thr_hi: 7837 },
];

const envOnlyRaw = [
  { n: 1, thr: 1807, thr_lo: 1526, thr_hi: 2087 },
  { n: 8, thr: 9343, thr_lo: 7293, thr_hi: 11393 },
  { n: 64, thr: 20050, thr_lo: 18861, thr_hi: 21239 },
  { n: 256, thr: 21003, thr_lo: 18891, thr_hi: 23114 },
];

const agentOnlyGroups1Raw = [
  { n: 1, thr: 1008, thr_lo: 709, thr_hi: 1306 },
  { n: 8, thr: 6359, thr_lo: 6028, thr_hi: 6690 },
  { n: 64, thr: 10413, thr_lo: 10209, thr_hi: 10617 },
  { n: 256, thr: 11160, thr_lo: 11101, thr_hi: 11219 },
];

const agentOnlyGroups2Raw = [
  { n: 8, thr: 4322, thr_lo: 3986, thr_hi: 4659 },
  { n: 64, thr: 9446, thr_lo: 9262, thr_hi: 9630 },
  { n: 256, thr: 10950, thr_lo: 10800, thr_hi: 11099 },
];

const chartMeta = {"game": "pong", "agent": "impala_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 256, "warmup": 32}, "date": "2026-11-29T21:43:32.432445+00:00", "group": "agent.name=impala_cnn, schedule.reps=3", "frameskip": 5, "unit": "env_steps/s"};
