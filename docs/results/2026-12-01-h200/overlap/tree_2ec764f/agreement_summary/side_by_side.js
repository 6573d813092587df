const asyncAgentOverlapFalseEnvNumThreads5Raw = [
  { n: 64, thr: 5481, thr_lo: 5465, thr_hi: 5497 },
];

const asyncAgentOverlapTrueEnvNumThreadsNullRaw = [
  { n: 64, thr: 20600, thr_lo: 19914, thr_hi: 21286 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false, env.num_threads=5": {"arrays": ["asyncAgentOverlapFalseEnvNumThreads5Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": false, "max_seconds": 300.0}, "date": "2026-12-01T17:57:04.028405+00:00", "group": "agent.overlap=false, env.num_threads=5", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true, env.num_threads=null": {"arrays": ["asyncAgentOverlapTrueEnvNumThreadsNullRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 240.0}, "date": "2026-12-01T17:51:41.362805+00:00", "group": "agent.overlap=true, env.num_threads=null", "frameskip": 5, "unit": "env_steps/s"}}};
