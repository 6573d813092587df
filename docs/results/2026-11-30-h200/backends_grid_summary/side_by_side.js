const stepEnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 17746, thr_lo: 11641, thr_hi: 23851 },
];

const sendrecvEnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 18416, thr_lo: 3905, thr_hi: 32926 },
];

const asyncEnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 23469, thr_lo: 20303, thr_hi: 26635 },
];

const envOnlyGroups1EnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 25751, thr_lo: 11002, thr_hi: 40499 },
];

const envOnlyGroups2EnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 28949, thr_lo: 9944, thr_hi: 47954 },
];

const stepEnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 6443, thr_lo: 5402, thr_hi: 7483 },
  { n: 64, thr: 15371, thr_lo: 7428, thr_hi: 23314 },
];

const sendrecvEnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 6461, thr_lo: 4136, thr_hi: 8786 },
  { n: 64, thr: 15767, thr_lo: 9677, thr_hi: 21856 },
];

const asyncEnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 7122, thr_lo: 5674, thr_hi: 8569 },
  { n: 64, thr: 22090, thr_lo: 20444, thr_hi: 23737 },
];

const envOnlyGroups1EnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 9131, thr_lo: 7129, thr_hi: 11132 },
  { n: 64, thr: 19312, thr_lo: 7581, thr_hi: 31043 },
];

const envOnlyGroups2EnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 9905, thr_lo: 3294, thr_hi: 16517 },
  { n: 64, thr: 25499, thr_lo: -1624, thr_hi: 52622 },
];

const stepEnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 16685, thr_lo: 6727, thr_hi: 26643 },
];

const sendrecvEnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 17305, thr_lo: 16057, thr_hi: 18553 },
];

const asyncEnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 20012, thr_lo: 8291, thr_hi: 31733 },
];

const envOnlyGroups1EnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 21883, thr_lo: 9751, thr_hi: 34014 },
];

const envOnlyGroups2EnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 26913, thr_lo: 5001, thr_hi: 48826 },
];

const stepEnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 5365, thr_lo: 3647, thr_hi: 7083 },
  { n: 64, thr: 13340, thr_lo: 6449, thr_hi: 20231 },
];

const sendrecvEnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 5789, thr_lo: 5165, thr_hi: 6413 },
  { n: 64, thr: 14373, thr_lo: 5092, thr_hi: 23655 },
];

const asyncEnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 6308, thr_lo: 5067, thr_hi: 7549 },
  { n: 64, thr: 19802, thr_lo: 18016, thr_hi: 21588 },
];

const envOnlyGroups1EnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 8088, thr_lo: 7824, thr_hi: 8352 },
  { n: 64, thr: 16802, thr_lo: 8980, thr_hi: 24624 },
];

const envOnlyGroups2EnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 8203, thr_lo: 5212, thr_hi: 11194 },
  { n: 64, thr: 22305, thr_lo: 3065, thr_hi: 41546 },
];

const stepEnvBackendGymnasiumScheduleBenchSteps300Raw = [
  { n: 256, thr: 8732, thr_lo: 8264, thr_hi: 9200 },
];

const sendrecvEnvBackendGymnasiumScheduleBenchSteps300Raw = [
  { n: 256, thr: 8521, thr_lo: 8118, thr_hi: 8925 },
];

const envOnlyEnvBackendGymnasiumScheduleBenchSteps300Raw = [
  { n: 256, thr: 9259, thr_lo: 5581, thr_hi: 12936 },
];

const stepEnvBackendGymnasiumScheduleBenchSteps400Raw = [
  { n: 8, thr: 4162, thr_lo: 2849, thr_hi: 5474 },
  { n: 64, thr: 7774, thr_lo: 6660, thr_hi: 8888 },
];

const sendrecvEnvBackendGymnasiumScheduleBenchSteps400Raw = [
  { n: 8, thr: 4268, thr_lo: 2365, thr_hi: 6170 },
  { n: 64, thr: 8488, thr_lo: 4858, thr_hi: 12117 },
];

const envOnlyEnvBackendGymnasiumScheduleBenchSteps400Raw = [
  { n: 8, thr: 5431, thr_lo: 2619, thr_hi: 8244 },
  { n: 64, thr: 8641, thr_lo: 4925, thr_hi: 12356 },
];

const envpoolOverAleStepScheduleBenchSteps300 = [
  { n: 256, ratio: 0.94, lo: 0.696, hi: 1.268, paired: 0.94, paired_lo: 0.367, paired_hi: 2.408 },
];

const gymnasiumOverAleStepScheduleBenchSteps300 = [
  { n: 256, ratio: 0.492, lo: 0.36, hi: 0.673, paired: 0.492, paired_lo: 0.331, paired_hi: 0.733 },
];

const envpoolOverAleSendrecvScheduleBenchSteps300 = [
  { n: 256, ratio: 0.941, lo: 0.439, hi: 2.017, paired: 0.941, paired_lo: 0.46, paired_hi: 1.928 },
];

const gymnasiumOverAleSendrecvScheduleBenchSteps300 = [
  { n: 256, ratio: 0.464, lo: 0.213, hi: 1.008, paired: 0.464, paired_lo: 0.221, paired_hi: 0.973 },
];

const envpoolOverAleAsyncGroups2ScheduleBenchSteps300 = [
  { n: 256, ratio: 0.852, lo: 0.526, hi: 1.378, paired: 0.852, paired_lo: 0.543, paired_hi: 1.338 },
];

const envpoolOverAleEnvOnlyScheduleBenchSteps300 = [
  { n: 256, ratio: 0.85, lo: 0.649, hi: 1.114, paired: 0.85, paired_lo: 0.834, paired_hi: 0.866 },
];

const gymnasiumOverAleEnvOnlyScheduleBenchSteps300 = [
  { n: 256, ratio: 0.36, lo: 0.276, hi: 0.47, paired: 0.36, paired_lo: 0.136, paired_hi: 0.949 },
];

const envpoolOverAleEnvOnlyGroups2ScheduleBenchSteps300 = [
  { n: 256, ratio: 0.929, lo: 0.641, hi: 1.345, paired: 0.929, paired_lo: 0.793, paired_hi: 1.088 },
];

const envpoolOverAleBestLoopScheduleBenchSteps300 = [
  { n: 256, ratio: 0.852, lo: 0.526, hi: 1.378, paired: 0.852, paired_lo: 0.543, paired_hi: 1.338, loop: "async[groups=2]", over_loop: "async[groups=2]" },
];

const gymnasiumOverAleBestLoopScheduleBenchSteps300 = [
  { n: 256, ratio: 0.372, lo: 0.342, hi: 0.405, paired: 0.372, paired_lo: 0.308, paired_hi: 0.449, loop: "step", over_loop: "async[groups=2]" },
];

const envpoolOverAleStepScheduleBenchSteps400 = [
  { n: 8, ratio: 0.833, lo: 0.7, hi: 0.99, paired: 0.833, paired_lo: 0.71, paired_hi: 0.976 },
  { n: 64, ratio: 0.868, lo: 0.678, hi: 1.112, paired: 0.868, paired_lo: 0.868, paired_hi: 0.868 },
];

const gymnasiumOverAleStepScheduleBenchSteps400 = [
  { n: 8, ratio: 0.646, lo: 0.545, hi: 0.765, paired: 0.646, paired_lo: 0.401, paired_hi: 1.041 },
  { n: 64, ratio: 0.506, lo: 0.341, hi: 0.751, paired: 0.506, paired_lo: 0.348, paired_hi: 0.736 },
];

const envpoolOverAleSendrecvScheduleBenchSteps400 = [
  { n: 8, ratio: 0.896, lo: 0.688, hi: 1.168, paired: 0.896, paired_lo: 0.561, paired_hi: 1.431 },
  { n: 64, ratio: 0.911, lo: 0.662, hi: 1.252, paired: 0.911, paired_lo: 0.702, paired_hi: 1.181 },
];

const gymnasiumOverAleSendrecvScheduleBenchSteps400 = [
  { n: 8, ratio: 0.66, lo: 0.539, hi: 0.809, paired: 0.66, paired_lo: 0.606, paired_hi: 0.72 },
  { n: 64, ratio: 0.538, lo: 0.442, hi: 0.656, paired: 0.538, paired_lo: 0.516, paired_hi: 0.561 },
];

const envpoolOverAleAsyncGroups2ScheduleBenchSteps400 = [
  { n: 8, ratio: 0.886, lo: 0.805, hi: 0.975, paired: 0.886, paired_lo: 0.594, paired_hi: 1.321 },
  { n: 64, ratio: 0.896, lo: 0.86, hi: 0.934, paired: 0.896, paired_lo: 0.882, paired_hi: 0.911 },
];

const envpoolOverAleEnvOnlyScheduleBenchSteps400 = [
  { n: 8, ratio: 0.886, lo: 0.725, hi: 1.083, paired: 0.886, paired_lo: 0.689, paired_hi: 1.14 },
  { n: 64, ratio: 0.87, lo: 0.66, hi: 1.148, paired: 0.87, paired_lo: 0.755, paired_hi: 1.003 },
];

const gymnasiumOverAleEnvOnlyScheduleBenchSteps400 = [
  { n: 8, ratio: 0.594, lo: 0.435, hi: 0.813, paired: 0.594, paired_lo: 0.284, paired_hi: 1.243 },
  { n: 64, ratio: 0.448, lo: 0.338, hi: 0.593, paired: 0.448, paired_lo: 0.159, paired_hi: 1.264 },
];

const envpoolOverAleEnvOnlyGroups2ScheduleBenchSteps400 = [
  { n: 8, ratio: 0.829, lo: 0.587, hi: 1.171, paired: 0.829, paired_lo: 0.612, paired_hi: 1.123 },
  { n: 64, ratio: 0.876, lo: 0.54, hi: 1.422, paired: 0.876, paired_lo: 0.715, paired_hi: 1.072 },
];

const envpoolOverAleBestLoopScheduleBenchSteps400 = [
  { n: 8, ratio: 0.886, lo: 0.805, hi: 0.975, paired: 0.886, paired_lo: 0.594, paired_hi: 1.321, loop: "async[groups=2]", over_loop: "async[groups=2]" },
  { n: 64, ratio: 0.896, lo: 0.86, hi: 0.934, paired: 0.896, paired_lo: 0.882, paired_hi: 0.911, loop: "async[groups=2]", over_loop: "async[groups=2]" },
];

const gymnasiumOverAleBestLoopScheduleBenchSteps400 = [
  { n: 8, ratio: 0.599, lo: 0.463, hi: 0.775, paired: 0.599, paired_lo: 0.47, paired_hi: 0.763, loop: "sendrecv", over_loop: "async[groups=2]" },
  { n: 64, ratio: 0.384, lo: 0.263, hi: 0.561, paired: 0.384, paired_lo: 0.232, paired_hi: 0.635, loop: "sendrecv", over_loop: "async[groups=2]" },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"env.backend=ale, schedule.bench_steps=300": {"arrays": ["stepEnvBackendAleScheduleBenchSteps300Raw", "sendrecvEnvBackendAleScheduleBenchSteps300Raw", "asyncEnvBackendAleScheduleBenchSteps300Raw", "envOnlyGroups1EnvBackendAleScheduleBenchSteps300Raw", "envOnlyGroups2EnvBackendAleScheduleBenchSteps300Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:50:44.576247+00:00", "group": "env.backend=ale, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=ale, schedule.bench_steps=400": {"arrays": ["stepEnvBackendAleScheduleBenchSteps400Raw", "sendrecvEnvBackendAleScheduleBenchSteps400Raw", "asyncEnvBackendAleScheduleBenchSteps400Raw", "envOnlyGroups1EnvBackendAleScheduleBenchSteps400Raw", "envOnlyGroups2EnvBackendAleScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:37:48.249841+00:00", "group": "env.backend=ale, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=envpool, schedule.bench_steps=300": {"arrays": ["stepEnvBackendEnvpoolScheduleBenchSteps300Raw", "sendrecvEnvBackendEnvpoolScheduleBenchSteps300Raw", "asyncEnvBackendEnvpoolScheduleBenchSteps300Raw", "envOnlyGroups1EnvBackendEnvpoolScheduleBenchSteps300Raw", "envOnlyGroups2EnvBackendEnvpoolScheduleBenchSteps300Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:50:59.992823+00:00", "group": "env.backend=envpool, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=envpool, schedule.bench_steps=400": {"arrays": ["stepEnvBackendEnvpoolScheduleBenchSteps400Raw", "sendrecvEnvBackendEnvpoolScheduleBenchSteps400Raw", "asyncEnvBackendEnvpoolScheduleBenchSteps400Raw", "envOnlyGroups1EnvBackendEnvpoolScheduleBenchSteps400Raw", "envOnlyGroups2EnvBackendEnvpoolScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:37:54.950938+00:00", "group": "env.backend=envpool, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=gymnasium, schedule.bench_steps=300": {"arrays": ["stepEnvBackendGymnasiumScheduleBenchSteps300Raw", "sendrecvEnvBackendGymnasiumScheduleBenchSteps300Raw", "envOnlyEnvBackendGymnasiumScheduleBenchSteps300Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:49:57.433651+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=gymnasium, schedule.bench_steps=400": {"arrays": ["stepEnvBackendGymnasiumScheduleBenchSteps400Raw", "sendrecvEnvBackendGymnasiumScheduleBenchSteps400Raw", "envOnlyEnvBackendGymnasiumScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:37:34.848678+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}}, "ratios": {"backend": {"arrays": ["envpoolOverAleStepScheduleBenchSteps300", "gymnasiumOverAleStepScheduleBenchSteps300", "envpoolOverAleSendrecvScheduleBenchSteps300", "gymnasiumOverAleSendrecvScheduleBenchSteps300", "envpoolOverAleAsyncGroups2ScheduleBenchSteps300", "envpoolOverAleEnvOnlyScheduleBenchSteps300", "gymnasiumOverAleEnvOnlyScheduleBenchSteps300", "envpoolOverAleEnvOnlyGroups2ScheduleBenchSteps300", "envpoolOverAleBestLoopScheduleBenchSteps300", "gymnasiumOverAleBestLoopScheduleBenchSteps300", "envpoolOverAleStepScheduleBenchSteps400", "gymnasiumOverAleStepScheduleBenchSteps400", "envpoolOverAleSendrecvScheduleBenchSteps400", "gymnasiumOverAleSendrecvScheduleBenchSteps400", "envpoolOverAleAsyncGroups2ScheduleBenchSteps400", "envpoolOverAleEnvOnlyScheduleBenchSteps400", "gymnasiumOverAleEnvOnlyScheduleBenchSteps400", "envpoolOverAleEnvOnlyGroups2ScheduleBenchSteps400", "envpoolOverAleBestLoopScheduleBenchSteps400", "gymnasiumOverAleBestLoopScheduleBenchSteps400"], "over": "ale", "paired": "per-round ratios of jobs of the same round; null under 2 rounds"}}};
