const stepRaw = [
  { n: 256, thr: 16685, thr_lo: 6727, thr_hi: 26643 },
];

const recvRaw = [
  { n: 256, thr: 17305, thr_lo: 16057, thr_hi: 18553 },
];

const asyncRaw = [
  { n: 256, thr: 20012, thr_lo: 8291, thr_hi: 31733 },
];

const envOnlyGroups1Raw = [
  { n: 256, thr: 21883, thr_lo: 9751, thr_hi: 34014 },
];

const envOnlyGroups2Raw = [
  { n: 256, thr: 26913, thr_lo: 5001, thr_hi: 48826 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:50:59.992823+00:00", "group": "env.backend=envpool, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"};
