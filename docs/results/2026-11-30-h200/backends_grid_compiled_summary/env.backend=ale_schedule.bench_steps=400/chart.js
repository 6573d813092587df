const stepRaw = [
  { n: 8, thr: 4368, thr_lo: 3574, thr_hi: 5162 },
  { n: 64, thr: 14987, thr_lo: 14475, thr_hi: 15500 },
];

const recvRaw = [
  { n: 8, thr: 4660, thr_lo: 4009, thr_hi: 5311 },
  { n: 64, thr: 14655, thr_lo: 14411, thr_hi: 14899 },
];

const asyncRaw = [
  { n: 8, thr: 5698, thr_lo: 5189, thr_hi: 6206 },
  { n: 64, thr: 19569, thr_lo: 12438, thr_hi: 26701 },
];

const envOnlyGroups1Raw = [
  { n: 8, thr: 8953, thr_lo: 2282, thr_hi: 15623 },
  { n: 64, thr: 22069, thr_lo: 18243, thr_hi: 25895 },
];

const envOnlyGroups2Raw = [
  { n: 8, thr: 14331, thr_lo: -14156, thr_hi: 42818 },
  { n: 64, thr: 33001, thr_lo: -29873, thr_hi: 95875 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T12:50:51.958419+00:00", "group": "env.backend=ale, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
