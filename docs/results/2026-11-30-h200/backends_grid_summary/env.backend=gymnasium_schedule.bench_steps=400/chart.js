const stepRaw = [
  { n: 8, thr: 4162, thr_lo: 2849, thr_hi: 5474 },
  { n: 64, thr: 7774, thr_lo: 6660, thr_hi: 8888 },
];

const recvRaw = [
  { n: 8, thr: 4268, thr_lo: 2365, thr_hi: 6170 },
  { n: 64, thr: 8488, thr_lo: 4858, thr_hi: 12117 },
];

const envOnlyRaw = [
  { n: 8, thr: 5431, thr_lo: 2619, thr_hi: 8244 },
  { n: 64, thr: 8641, thr_lo: 4925, thr_hi: 12356 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:37:34.848678+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
