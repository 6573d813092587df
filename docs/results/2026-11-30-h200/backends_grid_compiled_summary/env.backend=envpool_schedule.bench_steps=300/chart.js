const stepRaw = [
  { n: 256, thr: 19612, thr_lo: 15710, thr_hi: 23513 },
];

const recvRaw = [
  { n: 256, thr: 18186, thr_lo: 14827, thr_hi: 21546 },
];

const asyncRaw = [
  { n: 256, thr: 22922, thr_lo: 12672, thr_hi: 33172 },
];

const envOnlyGroups1Raw = [
  { n: 256, thr: 27058, thr_lo: 22406, thr_hi: 31710 },
];

const envOnlyGroups2Raw = [
  { n: 256, thr: 32070, thr_lo: 18762, thr_hi: 45377 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T13:02:36.383499+00:00", "group": "env.backend=envpool, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"};
