const asyncAgentOverlapFalseRaw = [
  { n: 64, thr: 5488, thr_lo: 5212, thr_hi: 5763 },
];

const asyncAgentOverlapTrueRaw = [
  { n: 64, thr: 7319, thr_lo: 6991, thr_hi: 7647 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false": {"arrays": ["asyncAgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 440.0}, "date": "2026-12-01T15:19:44.127955+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true": {"arrays": ["asyncAgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 290.0}, "date": "2026-12-01T15:34:43.185570+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
