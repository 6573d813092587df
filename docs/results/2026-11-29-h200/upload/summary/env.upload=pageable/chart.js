const stepRaw = [
  { n: 8, thr: 3858, thr_lo: 3335, thr_hi: 4382 },
  { n: 64, thr: 12683, thr_lo: 10200, thr_hi: 15165 },
];

const recvRaw = [
  { n: 8, thr: 4137, thr_lo: 4013, thr_hi: 4261 },
  { n: 64, thr: 12167, thr_lo: 9224, thr_hi: 15109 },
];

const asyncRaw = [
  { n: 8, thr: 4519, thr_lo: 4269, thr_hi: 4769 },
  { n: 64, thr: 16826, thr_lo: 14601, thr_hi: 19050 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 2, "bench_steps": 500, "warmup": 64, "profile": true}, "date": "2026-11-29T22:36:21.426126+00:00", "group": "env.upload=pageable", "frameskip": 5, "unit": "env_steps/s"};
