const stepRaw = [
  { n: 8, thr: 6443, thr_lo: 5402, thr_hi: 7483 },
  { n: 64, thr: 15371, thr_lo: 7428, thr_hi: 23314 },
];

const recvRaw = [
  { n: 8, thr: 6461, thr_lo: 4136, thr_hi: 8786 },
  { n: 64, thr: 15767, thr_lo: 9677, thr_hi: 21856 },
];

const asyncRaw = [
  { n: 8, thr: 7122, thr_lo: 5674, thr_hi: 8569 },
  { n: 64, thr: 22090, thr_lo: 20444, thr_hi: 23737 },
];

const envOnlyGroups1Raw = [
  { n: 8, thr: 9131, thr_lo: 7129, thr_hi: 11132 },
  { n: 64, thr: 19312, thr_lo: 7581, thr_hi: 31043 },
];

const envOnlyGroups2Raw = [
  { n: 8, thr: 9905, thr_lo: 3294, thr_hi: 16517 },
  { n: 64, thr: 25499, thr_lo: -1624, thr_hi: 52622 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:37:48.249841+00:00", "group": "env.backend=ale, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
