const stepScheduleMaxSeconds2400Raw = [
  { n: 32, thr: 11130, thr_lo: 11130, thr_hi: 11130 },
];

const asyncScheduleMaxSeconds2400Raw = [
  { n: 32, thr: 13981, thr_lo: 13981, thr_hi: 13981 },
];

const stepScheduleMaxSeconds4000Raw = [
  { n: 32, thr: 11329, thr_lo: 11329, thr_hi: 11329 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"schedule.max_seconds=240.0": {"arrays": ["stepScheduleMaxSeconds2400Raw", "asyncScheduleMaxSeconds2400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "max_seconds": 240.0}, "date": "2026-11-30T10:13:22.886371+00:00", "group": "schedule.max_seconds=240.0", "frameskip": 5, "unit": "env_steps/s"}, "schedule.max_seconds=400.0": {"arrays": ["stepScheduleMaxSeconds4000Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "max_seconds": 400.0}, "date": "2026-11-30T10:19:57.975647+00:00", "group": "schedule.max_seconds=400.0", "frameskip": 5, "unit": "env_steps/s"}}};
