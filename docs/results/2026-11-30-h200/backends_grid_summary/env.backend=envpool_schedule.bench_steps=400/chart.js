const stepRaw = [
  { n: 8, thr: 5365, thr_lo: 3647, thr_hi: 7083 },
  { n: 64, thr: 13340, thr_lo: 6449, thr_hi: 20231 },
];

const recvRaw = [
  { n: 8, thr: 5789, thr_lo: 5165, thr_hi: 6413 },
  { n: 64, thr: 14373, thr_lo: 5092, thr_hi: 23655 },
];

const asyncRaw = [
  { n: 8, thr: 6308, thr_lo: 5067, thr_hi: 7549 },
  { n: 64, thr: 19802, thr_lo: 18016, thr_hi: 21588 },
];

const envOnlyGroups1Raw = [
  { n: 8, thr: 8088, thr_lo: 7824, thr_hi: 8352 },
  { n: 64, thr: 16802, thr_lo: 8980, thr_hi: 24624 },
];

const envOnlyGroups2Raw = [
  { n: 8, thr: 8203, thr_lo: 5212, thr_hi: 11194 },
  { n: 64, thr: 22305, thr_lo: 3065, thr_hi: 41546 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:37:54.950938+00:00", "group": "env.backend=envpool, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
