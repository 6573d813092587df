const asyncEnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 21930, thr_lo: 21930, thr_hi: 21930 },
];

const asyncEnvBackendAleScheduleBenchSteps400Raw = [
  { n: 64, thr: 21798, thr_lo: 21798, thr_hi: 21798 },
];

const asyncEnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 20960, thr_lo: 20960, thr_hi: 20960 },
];

const asyncEnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 64, thr: 19807, thr_lo: 19807, thr_hi: 19807 },
];

const stepEnvBackendGymnasiumScheduleBenchSteps300Raw = [
  { n: 256, thr: 8900, thr_lo: 8900, thr_hi: 8900 },
];

const stepEnvBackendGymnasiumScheduleBenchSteps400Raw = [
  { n: 64, thr: 8336, thr_lo: 8336, thr_hi: 8336 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"env.backend=ale, schedule.bench_steps=300": {"arrays": ["asyncEnvBackendAleScheduleBenchSteps300Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true}, "date": "2026-11-30T07:12:21.736778+00:00", "group": "env.backend=ale, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=ale, schedule.bench_steps=400": {"arrays": ["asyncEnvBackendAleScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T07:14:10.856776+00:00", "group": "env.backend=ale, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=envpool, schedule.bench_steps=300": {"arrays": ["asyncEnvBackendEnvpoolScheduleBenchSteps300Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true}, "date": "2026-11-30T07:12:47.024226+00:00", "group": "env.backend=envpool, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=envpool, schedule.bench_steps=400": {"arrays": ["asyncEnvBackendEnvpoolScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T07:14:29.613513+00:00", "group": "env.backend=envpool, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=gymnasium, schedule.bench_steps=300": {"arrays": ["stepEnvBackendGymnasiumScheduleBenchSteps300Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true}, "date": "2026-11-30T07:13:35.563350+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=gymnasium, schedule.bench_steps=400": {"arrays": ["stepEnvBackendGymnasiumScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T07:15:02.537957+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}}};
