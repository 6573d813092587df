const stepRaw = [
  { n: 1, thr: 1173, thr_lo: -2852, thr_hi: 5198 },
  { n: 8, thr: 6225, thr_lo: -3721, thr_hi: 16170 },
  { n: 64, thr: 14725, thr_lo: 9783, thr_hi: 19667 },
];

const asyncRaw = [
  { n: 8, thr: 7520, thr_lo: 4464, thr_hi: 10576 },
  { n: 64, thr: 21115, thr_lo: 1739, thr_hi: 40490 },
];

const envOnlyGroups1Raw = [
  { n: 1, thr: 2091, thr_lo: 428, thr_hi: 3754 },
  { n: 8, thr: 8706, thr_lo: 2194, thr_hi: 15217 },
  { n: 64, thr: 18586, thr_lo: 17063, thr_hi: 20109 },
];

const envOnlyGroups2Raw = [
  { n: 8, thr: 8980, thr_lo: -3986, thr_hi: 21947 },
  { n: 64, thr: 26558, thr_lo: -11093, thr_hi: 64208 },
];

const agentOnlyGroups1Raw = [
  { n: 1, thr: 6235, thr_lo: 5087, thr_hi: 7383 },
  { n: 8, thr: 38352, thr_lo: 26480, thr_hi: 50223 },
  { n: 64, thr: 122404, thr_lo: 117013, thr_hi: 127794 },
];

const agentOnlyGroups2Raw = [
  { n: 8, thr: 23886, thr_lo: 22820, thr_hi: 24951 },
  { n: 64, thr: 102465, thr_lo: 98572, thr_hi: 106359 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": true}, "date": "2026-11-30T05:21:24.986454+00:00", "group": "agent.runtime=graphed, schedule.bench_steps=500", "frameskip": 5, "unit": "env_steps/s"};
