const stepEnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 19199, thr_lo: 1844, thr_hi: 36555 },
];

const sendrecvEnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 19803, thr_lo: 5587, thr_hi: 34020 },
];

const asyncEnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 24610, thr_lo: 22561, thr_hi: 26658 },
];

const envOnlyGroups1EnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 30022, thr_lo: 20621, thr_hi: 39424 },
];

const envOnlyGroups2EnvBackendAleScheduleBenchSteps300Raw = [
  { n: 256, thr: 36349, thr_lo: 35137, thr_hi: 37562 },
];

const stepEnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 4368, thr_lo: 3574, thr_hi: 5162 },
  { n: 64, thr: 14987, thr_lo: 14475, thr_hi: 15500 },
];

const sendrecvEnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 4660, thr_lo: 4009, thr_hi: 5311 },
  { n: 64, thr: 14655, thr_lo: 14411, thr_hi: 14899 },
];

const asyncEnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 5698, thr_lo: 5189, thr_hi: 6206 },
  { n: 64, thr: 19569, thr_lo: 12438, thr_hi: 26701 },
];

const envOnlyGroups1EnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 8953, thr_lo: 2282, thr_hi: 15623 },
  { n: 64, thr: 22069, thr_lo: 18243, thr_hi: 25895 },
];

const envOnlyGroups2EnvBackendAleScheduleBenchSteps400Raw = [
  { n: 8, thr: 14331, thr_lo: -14156, thr_hi: 42818 },
  { n: 64, thr: 33001, thr_lo: -29873, thr_hi: 95875 },
];

const stepEnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 19612, thr_lo: 15710, thr_hi: 23513 },
];

const sendrecvEnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 18186, thr_lo: 14827, thr_hi: 21546 },
];

const asyncEnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 22922, thr_lo: 12672, thr_hi: 33172 },
];

const envOnlyGroups1EnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 27058, thr_lo: 22406, thr_hi: 31710 },
];

const envOnlyGroups2EnvBackendEnvpoolScheduleBenchSteps300Raw = [
  { n: 256, thr: 32070, thr_lo: 18762, thr_hi: 45377 },
];

const stepEnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 4051, thr_lo: 3002, thr_hi: 5100 },
  { n: 64, thr: 13070, thr_lo: 8593, thr_hi: 17547 },
];

const sendrecvEnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 4402, thr_lo: 1018, thr_hi: 7785 },
  { n: 64, thr: 13843, thr_lo: 4898, thr_hi: 22787 },
];

const asyncEnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 4901, thr_lo: 597, thr_hi: 9205 },
  { n: 64, thr: 15746, thr_lo: 11402, thr_hi: 20091 },
];

const envOnlyGroups1EnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 8568, thr_lo: 6826, thr_hi: 10310 },
  { n: 64, thr: 19253, thr_lo: 4087, thr_hi: 34418 },
];

const envOnlyGroups2EnvBackendEnvpoolScheduleBenchSteps400Raw = [
  { n: 8, thr: 10687, thr_lo: 1014, thr_hi: 20359 },
  { n: 64, thr: 31240, thr_lo: -13391, thr_hi: 75872 },
];

const stepEnvBackendGymnasiumScheduleBenchSteps300Raw = [
  { n: 256, thr: 9226, thr_lo: 2806, thr_hi: 15645 },
];

const sendrecvEnvBackendGymnasiumScheduleBenchSteps300Raw = [
  { n: 256, thr: 9479, thr_lo: 6634, thr_hi: 12324 },
];

const envOnlyEnvBackendGymnasiumScheduleBenchSteps300Raw = [
  { n: 256, thr: 11994, thr_lo: 6517, thr_hi: 17472 },
];

const stepEnvBackendGymnasiumScheduleBenchSteps400Raw = [
  { n: 8, thr: 3065, thr_lo: 898, thr_hi: 5232 },
  { n: 64, thr: 7907, thr_lo: 2926, thr_hi: 12888 },
];

const sendrecvEnvBackendGymnasiumScheduleBenchSteps400Raw = [
  { n: 8, thr: 3555, thr_lo: 3174, thr_hi: 3936 },
  { n: 64, thr: 8407, thr_lo: 4987, thr_hi: 11827 },
];

const envOnlyEnvBackendGymnasiumScheduleBenchSteps400Raw = [
  { n: 8, thr: 5854, thr_lo: 5655, thr_hi: 6054 },
  { n: 64, thr: 10852, thr_lo: 6678, thr_hi: 15027 },
];

const envpoolOverAleStepScheduleBenchSteps300 = [
  { n: 256, ratio: 1.024, lo: 0.481, hi: 2.179, paired: 1.024, paired_lo: 0.339, paired_hi: 3.09 },
];

const gymnasiumOverAleStepScheduleBenchSteps300 = [
  { n: 256, ratio: 0.481, lo: 0.318, hi: 0.726, paired: 0.481, paired_lo: 0.39, paired_hi: 0.593 },
];

const envpoolOverAleSendrecvScheduleBenchSteps300 = [
  { n: 256, ratio: 0.92, lo: 0.522, hi: 1.62, paired: 0.92, paired_lo: 0.539, paired_hi: 1.569 },
];

const gymnasiumOverAleSendrecvScheduleBenchSteps300 = [
  { n: 256, ratio: 0.479, lo: 0.309, hi: 0.743, paired: 0.479, paired_lo: 0.315, paired_hi: 0.728 },
];

const envpoolOverAleAsyncGroups2ScheduleBenchSteps300 = [
  { n: 256, ratio: 0.931, lo: 0.63, hi: 1.376, paired: 0.931, paired_lo: 0.548, paired_hi: 1.582 },
];

const envpoolOverAleEnvOnlyScheduleBenchSteps300 = [
  { n: 256, ratio: 0.901, lo: 0.767, hi: 1.059, paired: 0.901, paired_lo: 0.783, paired_hi: 1.038 },
];

const gymnasiumOverAleEnvOnlyScheduleBenchSteps300 = [
  { n: 256, ratio: 0.399, lo: 0.323, hi: 0.494, paired: 0.399, paired_lo: 0.185, paired_hi: 0.863 },
];

const envpoolOverAleEnvOnlyGroups2ScheduleBenchSteps300 = [
  { n: 256, ratio: 0.882, lo: 0.589, hi: 1.321, paired: 0.882, paired_lo: 0.602, paired_hi: 1.292 },
];

const envpoolOverAleBestLoopScheduleBenchSteps300 = [
  { n: 256, ratio: 0.931, lo: 0.63, hi: 1.376, paired: 0.931, paired_lo: 0.548, paired_hi: 1.582, loop: "async[groups=2]", over_loop: "async[groups=2]" },
];

const gymnasiumOverAleBestLoopScheduleBenchSteps300 = [
  { n: 256, ratio: 0.385, lo: 0.306, hi: 0.484, paired: 0.385, paired_lo: 0.262, paired_hi: 0.565, loop: "sendrecv", over_loop: "async[groups=2]" },
];

const envpoolOverAleStepScheduleBenchSteps400 = [
  { n: 8, ratio: 0.927, lo: 0.823, hi: 1.046, paired: 0.927, paired_lo: 0.859, paired_hi: 1.002 },
  { n: 64, ratio: 0.872, lo: 0.627, hi: 1.211, paired: 0.872, paired_lo: 0.64, paired_hi: 1.187 },
];

const gymnasiumOverAleStepScheduleBenchSteps400 = [
  { n: 8, ratio: 0.701, lo: 0.401, hi: 1.224, paired: 0.701, paired_lo: 0.414, paired_hi: 1.186 },
  { n: 64, ratio: 0.527, lo: 0.283, hi: 0.982, paired: 0.527, paired_lo: 0.29, paired_hi: 0.957 },
];

const envpoolOverAleSendrecvScheduleBenchSteps400 = [
  { n: 8, ratio: 0.943, lo: 0.479, hi: 1.855, paired: 0.943, paired_lo: 0.502, paired_hi: 1.77 },
  { n: 64, ratio: 0.943, lo: 0.495, hi: 1.798, paired: 0.943, paired_lo: 0.486, paired_hi: 1.831 },
];

const gymnasiumOverAleSendrecvScheduleBenchSteps400 = [
  { n: 8, ratio: 0.763, lo: 0.716, hi: 0.813, paired: 0.763, paired_lo: 0.739, paired_hi: 0.788 },
  { n: 64, ratio: 0.573, lo: 0.383, hi: 0.859, paired: 0.573, paired_lo: 0.375, paired_hi: 0.876 },
];

const envpoolOverAleAsyncGroups2ScheduleBenchSteps400 = [
  { n: 8, ratio: 0.858, lo: 0.369, hi: 1.994, paired: 0.858, paired_lo: 0.389, paired_hi: 1.892 },
  { n: 64, ratio: 0.805, lo: 0.681, hi: 0.95, paired: 0.805, paired_lo: 0.737, paired_hi: 0.879 },
];

const envpoolOverAleEnvOnlyScheduleBenchSteps400 = [
  { n: 8, ratio: 0.959, lo: 0.54, hi: 1.701, paired: 0.959, paired_lo: 0.557, paired_hi: 1.649 },
  { n: 64, ratio: 0.871, lo: 0.451, hi: 1.681, paired: 0.871, paired_lo: 0.333, paired_hi: 2.279 },
];

const gymnasiumOverAleEnvOnlyScheduleBenchSteps400 = [
  { n: 8, ratio: 0.655, lo: 0.313, hi: 1.372, paired: 0.655, paired_lo: 0.321, paired_hi: 1.335 },
  { n: 64, ratio: 0.492, lo: 0.393, hi: 0.615, paired: 0.492, paired_lo: 0.398, paired_hi: 0.607 },
];

const envpoolOverAleEnvOnlyGroups2ScheduleBenchSteps400 = [
  { n: 8, ratio: 0.753, lo: 0.236, hi: 2.406, paired: 0.753, paired_lo: 0.041, paired_hi: 13.836 },
  { n: 64, ratio: 0.951, lo: 0.396, hi: 2.287, paired: 0.951, paired_lo: 0.586, paired_hi: 1.545 },
];

const envpoolOverAleBestLoopScheduleBenchSteps400 = [
  { n: 8, ratio: 0.858, lo: 0.369, hi: 1.994, paired: 0.858, paired_lo: 0.389, paired_hi: 1.892, loop: "async[groups=2]", over_loop: "async[groups=2]" },
  { n: 64, ratio: 0.805, lo: 0.681, hi: 0.95, paired: 0.805, paired_lo: 0.737, paired_hi: 0.879, loop: "async[groups=2]", over_loop: "async[groups=2]" },
];

const gymnasiumOverAleBestLoopScheduleBenchSteps400 = [
  { n: 8, ratio: 0.624, lo: 0.594, hi: 0.655, paired: 0.624, paired_lo: 0.613, paired_hi: 0.635, loop: "sendrecv", over_loop: "async[groups=2]" },
  { n: 64, ratio: 0.43, lo: 0.356, hi: 0.518, paired: 0.43, paired_lo: 0.412, paired_hi: 0.448, loop: "sendrecv", over_loop: "async[groups=2]" },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"env.backend=ale, schedule.bench_steps=300": {"arrays": ["stepEnvBackendAleScheduleBenchSteps300Raw", "sendrecvEnvBackendAleScheduleBenchSteps300Raw", "asyncEnvBackendAleScheduleBenchSteps300Raw", "envOnlyGroups1EnvBackendAleScheduleBenchSteps300Raw", "envOnlyGroups2EnvBackendAleScheduleBenchSteps300Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T13:02:20.865689+00:00", "group": "env.backend=ale, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=ale, schedule.bench_steps=400": {"arrays": ["stepEnvBackendAleScheduleBenchSteps400Raw", "sendrecvEnvBackendAleScheduleBenchSteps400Raw", "asyncEnvBackendAleScheduleBenchSteps400Raw", "envOnlyGroups1EnvBackendAleScheduleBenchSteps400Raw", "envOnlyGroups2EnvBackendAleScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T12:50:51.958419+00:00", "group": "env.backend=ale, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=envpool, schedule.bench_steps=300": {"arrays": ["stepEnvBackendEnvpoolScheduleBenchSteps300Raw", "sendrecvEnvBackendEnvpoolScheduleBenchSteps300Raw", "asyncEnvBackendEnvpoolScheduleBenchSteps300Raw", "envOnlyGroups1EnvBackendEnvpoolScheduleBenchSteps300Raw", "envOnlyGroups2EnvBackendEnvpoolScheduleBenchSteps300Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T13:02:36.383499+00:00", "group": "env.backend=envpool, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=envpool, schedule.bench_steps=400": {"arrays": ["stepEnvBackendEnvpoolScheduleBenchSteps400Raw", "sendrecvEnvBackendEnvpoolScheduleBenchSteps400Raw", "asyncEnvBackendEnvpoolScheduleBenchSteps400Raw", "envOnlyGroups1EnvBackendEnvpoolScheduleBenchSteps400Raw", "envOnlyGroups2EnvBackendEnvpoolScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T12:51:02.443470+00:00", "group": "env.backend=envpool, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=gymnasium, schedule.bench_steps=300": {"arrays": ["stepEnvBackendGymnasiumScheduleBenchSteps300Raw", "sendrecvEnvBackendGymnasiumScheduleBenchSteps300Raw", "envOnlyEnvBackendGymnasiumScheduleBenchSteps300Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T13:01:42.538991+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=300", "frameskip": 5, "unit": "env_steps/s"}, "env.backend=gymnasium, schedule.bench_steps=400": {"arrays": ["stepEnvBackendGymnasiumScheduleBenchSteps400Raw", "sendrecvEnvBackendGymnasiumScheduleBenchSteps400Raw", "envOnlyEnvBackendGymnasiumScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T12:50:34.752281+00:00", "group": "env.backend=gymnasium, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}}, "ratios": {"backend": {"arrays": ["envpoolOverAleStepScheduleBenchSteps300", "gymnasiumOverAleStepScheduleBenchSteps300", "envpoolOverAleSendrecvScheduleBenchSteps300", "gymnasiumOverAleSendrecvScheduleBenchSteps300", "envpoolOverAleAsyncGroups2ScheduleBenchSteps300", "envpoolOverAleEnvOnlyScheduleBenchSteps300", "gymnasiumOverAleEnvOnlyScheduleBenchSteps300", "envpoolOverAleEnvOnlyGroups2ScheduleBenchSteps300", "envpoolOverAleBestLoopScheduleBenchSteps300", "gymnasiumOverAleBestLoopScheduleBenchSteps300", "envpoolOverAleStepScheduleBenchSteps400", "gymnasiumOverAleStepScheduleBenchSteps400", "envpoolOverAleSendrecvScheduleBenchSteps400", "gymnasiumOverAleSendrecvScheduleBenchSteps400", "envpoolOverAleAsyncGroups2ScheduleBenchSteps400", "envpoolOverAleEnvOnlyScheduleBenchSteps400", "gymnasiumOverAleEnvOnlyScheduleBenchSteps400", "envpoolOverAleEnvOnlyGroups2ScheduleBenchSteps400", "envpoolOverAleBestLoopScheduleBenchSteps400", "gymnasiumOverAleBestLoopScheduleBenchSteps400"], "over": "ale", "paired": "per-round ratios of jobs of the same round; null under 2 rounds"}}};
