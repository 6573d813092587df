const stepRaw = [
  { n: 256, thr: 16336, thr_lo: 16336, thr_hi: 16336 },
];

const asyncRaw = [
  { n: 256, thr: 21823, thr_lo: 21823, thr_hi: 21823 },
];

const envOnlyGroups1Raw = [
  { n: 256, thr: 25861, thr_lo: 25861, thr_hi: 25861 },
];

const envOnlyGroups2Raw = [
  { n: 256, thr: 27506, thr_lo: 17258, thr_hi: 37754 },
];

const agentOnlyGroups1Raw = [
  { n: 256, thr: 106737, thr_lo: 106737, thr_hi: 106737 },
];

const agentOnlyGroups2Raw = [
  { n: 256, thr: 129099, thr_lo: 129099, thr_hi: 129099 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:37:18.280888+00:00", "group": "agent.runtime=graphed, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
