const stepRaw = [
  { n: 256, thr: 14881, thr_lo: 14881, thr_hi: 14881 },
];

const asyncRaw = [
  { n: 256, thr: 19424, thr_lo: 17296, thr_hi: 21552 },
];

const agentOnlyRaw = [
  { n: 256, thr: 104457, thr_lo: 104457, thr_hi: 104457 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:38:00.216067+00:00", "group": "agent.runtime=compiled, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
