const stepRaw = [
  { n: 8, thr: 3065, thr_lo: 898, thr_hi: 5232 },
  { n: 64, thr: 7907, thr_lo: 2926, thr_hi: 12888 },
];

const recvRaw = [
  { n: 8, thr: 3555, thr_lo: 3174, thr_hi: 3936 },
  { n: 64, thr: 8407, thr_lo: 4987, thr_hi: 11827 },
];

const envOnlyRaw = [
  { n: 8, thr: 5854, thr_lo: 5655, thr_hi: 6054 },
  { n: 64, thr: 10852, thr_lo: 6678, thr_hi: 15027 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T12:50:34.752281+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
