const asyncAgentOverlapFalseRaw = [
  { n: 64, thr: 16341, thr_lo: 14780, thr_hi: 17901 },
];

const asyncAgentOverlapTrueRaw = [
  { n: 64, thr: 20352, thr_lo: 18737, thr_hi: 21966 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false": {"arrays": ["asyncAgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 120.0}, "date": "2026-12-01T06:24:48.146838+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true": {"arrays": ["asyncAgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 240.0}, "date": "2026-12-01T06:18:23.973497+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
