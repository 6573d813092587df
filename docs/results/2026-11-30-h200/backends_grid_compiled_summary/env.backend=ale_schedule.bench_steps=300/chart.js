const stepRaw = [
  { n: 256, thr: 19199, thr_lo: 1844, thr_hi: 36555 },
];

const recvRaw = [
  { n: 256, thr: 19803, thr_lo: 5587, thr_hi: 34020 },
];

const asyncRaw = [
  { n: 256, thr: 24610, thr_lo: 22561, thr_hi: 26658 },
];

const envOnlyGroups1Raw = [
  { n: 256, thr: 30022, thr_lo: 20621, thr_hi: 39424 },
];

const envOnlyGroups2Raw = [
  { n: 256, thr: 36349, thr_lo: 35137, thr_hi: 37562 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T13:02:20.865689+00:00", "group": "env.backend=ale, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"};
