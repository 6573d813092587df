const stepRaw = [
  { n: 32, thr: 1893, thr_lo: 1792, thr_hi: 1994 },
];

const asyncRaw = [
  { n: 32, thr: 3371, thr_lo: 3225, thr_hi: 3517 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "max_seconds": 470.0}, "date": "2026-11-30T09:02:02.968080+00:00", "group": "schedule.max_seconds=470.0", "frameskip": 5, "unit": "env_steps/s"};
