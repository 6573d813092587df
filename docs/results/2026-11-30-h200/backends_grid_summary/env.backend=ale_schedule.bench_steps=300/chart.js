const stepRaw = [
  { n: 256, thr: 17746, thr_lo: 11641, thr_hi: 23851 },
];

const recvRaw = [
  { n: 256, thr: 18416, thr_lo: 3905, thr_hi: 32926 },
];

const asyncRaw = [
  { n: 256, thr: 23469, thr_lo: 20303, thr_hi: 26635 },
];

const envOnlyGroups1Raw = [
  { n: 256, thr: 25751, thr_lo: 11002, thr_hi: 40499 },
];

const envOnlyGroups2Raw = [
  { n: 256, thr: 28949, thr_lo: 9944, thr_hi: 47954 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:50:44.576247+00:00", "group": "env.backend=ale, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"};
