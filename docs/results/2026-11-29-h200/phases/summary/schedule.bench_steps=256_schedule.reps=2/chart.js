const stepRaw = [
  { n: 256, thr: 14983, thr_lo: 11660, thr_hi: 18306 },
];

const asyncRaw = [
  { n: 256, thr: 19110, thr_lo: 17075, thr_hi: 21144 },
];

const envOnlyRaw = [
  { n: 256, thr: 19835, thr_lo: 19754, thr_hi: 19915 },
];

const agentOnlyGroups1Raw = [
  { n: 256, thr: 96848, thr_lo: 96716, thr_hi: 96981 },
];

const agentOnlyGroups2Raw = [
  { n: 256, thr: 91385, thr_lo: 43290, thr_hi: 139480 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 2, "bench_steps": 256, "warmup": 64, "profile": true}, "date": "2026-11-29T22:42:22.131237+00:00", "group": "schedule.bench_steps=256, schedule.reps=2", "frameskip": 5, "unit": "env_steps/s"};
