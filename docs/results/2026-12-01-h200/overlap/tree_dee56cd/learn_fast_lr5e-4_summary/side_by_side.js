const asyncAgentLearningRate000025AgentOverlapFalseRaw = [
  { n: 64, thr: 16341, thr_lo: 14780, thr_hi: 17901 },
];

const asyncAgentLearningRate000025AgentOverlapTrueRaw = [
  { n: 64, thr: 20352, thr_lo: 18737, thr_hi: 21966 },
];

const asyncAgentLearningRate00005AgentOverlapTrueRaw = [
  { n: 64, thr: 22081, thr_lo: 21479, thr_hi: 22684 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.learning_rate=0.00025, agent.overlap=false": {"arrays": ["asyncAgentLearningRate000025AgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 120.0}, "date": "2026-12-01T06:24:48.146838+00:00", "group": "agent.learning_rate=0.00025, agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.learning_rate=0.00025, agent.overlap=true": {"arrays": ["asyncAgentLearningRate000025AgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 240.0}, "date": "2026-12-01T06:18:23.973497+00:00", "group": "agent.learning_rate=0.00025, agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}, "agent.learning_rate=0.0005, agent.overlap=true": {"arrays": ["asyncAgentLearningRate00005AgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 150.0}, "date": "2026-12-01T12:54:36.784059+00:00", "group": "agent.learning_rate=0.0005, agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
