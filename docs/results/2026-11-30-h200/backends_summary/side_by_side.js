const stepEnvBackendAleRaw = [
  { n: 8, thr: 6416, thr_lo: 6416, thr_hi: 6416 },
  { n: 64, thr: 15356, thr_lo: 15356, thr_hi: 15356 },
];

const asyncEnvBackendAleRaw = [
  { n: 8, thr: 6075, thr_lo: 6075, thr_hi: 6075 },
  { n: 64, thr: 21808, thr_lo: 21808, thr_hi: 21808 },
];

const envOnlyGroups1EnvBackendAleRaw = [
  { n: 8, thr: 7207, thr_lo: 7207, thr_hi: 7207 },
  { n: 64, thr: 14193, thr_lo: 14193, thr_hi: 14193 },
];

const envOnlyGroups2EnvBackendAleRaw = [
  { n: 8, thr: 8620, thr_lo: 8620, thr_hi: 8620 },
  { n: 64, thr: 21983, thr_lo: 21983, thr_hi: 21983 },
];

const stepEnvBackendEnvpoolRaw = [
  { n: 8, thr: 5219, thr_lo: 5219, thr_hi: 5219 },
  { n: 64, thr: 14521, thr_lo: 14521, thr_hi: 14521 },
];

const asyncEnvBackendEnvpoolRaw = [
  { n: 8, thr: 6292, thr_lo: 6292, thr_hi: 6292 },
  { n: 64, thr: 20093, thr_lo: 20093, thr_hi: 20093 },
];

const envOnlyGroups1EnvBackendEnvpoolRaw = [
  { n: 8, thr: 7041, thr_lo: 7041, thr_hi: 7041 },
  { n: 64, thr: 13390, thr_lo: 13390, thr_hi: 13390 },
];

const envOnlyGroups2EnvBackendEnvpoolRaw = [
  { n: 8, thr: 6165, thr_lo: 6165, thr_hi: 6165 },
  { n: 64, thr: 23899, thr_lo: 23899, thr_hi: 23899 },
];

const stepEnvBackendGymnasiumRaw = [
  { n: 8, thr: 2934, thr_lo: 2934, thr_hi: 2934 },
  { n: 64, thr: 8107, thr_lo: 8107, thr_hi: 8107 },
];

const envOnlyEnvBackendGymnasiumRaw = [
  { n: 8, thr: 5205, thr_lo: 5205, thr_hi: 5205 },
  { n: 64, thr: 8094, thr_lo: 8094, thr_hi: 8094 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"env.backend=ale": {"arrays": ["stepEnvBackendAleRaw", "asyncEnvBackendAleRaw", "envOnlyGroups1EnvBackendAleRaw", "envOnlyGroups2EnvBackendAleRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:41:12.271147+00:00", "group": "env.backend=ale", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=envpool": {"arrays": ["stepEnvBackendEnvpoolRaw", "asyncEnvBackendEnvpoolRaw", "envOnlyGroups1EnvBackendEnvpoolRaw", "envOnlyGroups2EnvBackendEnvpoolRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:41:17.252457+00:00", "group": "env.backend=envpool", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=gymnasium": {"arrays": ["stepEnvBackendGymnasiumRaw", "envOnlyEnvBackendGymnasiumRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:40:39.844960+00:00", "group": "env.backend=gymnasium", "frameskip": 5, "unit": "env_steps/s"}}};
