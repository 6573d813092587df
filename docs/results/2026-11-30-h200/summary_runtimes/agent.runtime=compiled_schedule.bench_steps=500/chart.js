const stepRaw = [
  { n: 1, thr: 618, thr_lo: 607, thr_hi: 629 },
  { n: 8, thr: 4042, thr_lo: -2387, thr_hi: 10471 },
  { n: 64, thr: 14137, thr_lo: 6098, thr_hi: 22176 },
];

const asyncRaw = [
  { n: 8, thr: 3989, thr_lo: -733, thr_hi: 8710 },
  { n: 64, thr: 18793, thr_lo: -4024, thr_hi: 41610 },
];

const envOnlyGroups1Raw = [
  { n: 1, thr: 1959, thr_lo: 717, thr_hi: 3201 },
  { n: 8, thr: 7794, thr_lo: -2477, thr_hi: 18066 },
  { n: 64, thr: 19463, thr_lo: 9592, thr_hi: 29333 },
];

const envOnlyGroups2Raw = [
  { n: 8, thr: 9069, thr_lo: 1403, thr_hi: 16736 },
  { n: 64, thr: 24809, thr_lo: -10003, thr_hi: 59622 },
];

const agentOnlyGroups1Raw = [
  { n: 1, thr: 1685, thr_lo: -739, thr_hi: 4109 },
  { n: 8, thr: 11696, thr_lo: -10730, thr_hi: 34121 },
  { n: 64, thr: 95437, thr_lo: -28385, thr_hi: 219259 },
];

const agentOnlyGroups2Raw = [
  { n: 8, thr: 8039, thr_lo: -11150, thr_hi: 27227 },
  { n: 64, thr: 75874, thr_lo: 36941, thr_hi: 114808 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": true}, "date": "2026-11-30T05:21:23.089613+00:00", "group": "agent.runtime=compiled, schedule.bench_steps=500", "frameskip": 5, "unit": "env_steps/s"};
