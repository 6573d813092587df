const asyncAgentAnnealLrFalseAgentKlTarget001AgentLearningRate000025AgentOverlapFalseRaw = [
  { n: 64, thr: 2528, thr_lo: 2498, thr_hi: 2558 },
];

const asyncAgentAnnealLrFalseAgentKlTarget001AgentLearningRate000025AgentOverlapTrueRaw = [
  { n: 64, thr: 2824, thr_lo: 2412, thr_hi: 3237 },
];

const asyncAgentAnnealLrTrueAgentKlTargetNullAgentLearningRate000025AgentOverlapTrueRaw = [
  { n: 64, thr: 2813, thr_lo: 2547, thr_hi: 3080 },
];

const asyncAgentAnnealLrTrueAgentKlTargetNullAgentLearningRate00005AgentOverlapTrueRaw = [
  { n: 64, thr: 2768, thr_lo: 2657, thr_hi: 2879 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.anneal_lr=false, agent.kl_target=0.01, agent.learning_rate=0.00025, agent.overlap=false": {"arrays": ["asyncAgentAnnealLrFalseAgentKlTarget001AgentLearningRate000025AgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 460.0}, "date": "2026-12-01T08:28:01.962202+00:00", "group": "agent.anneal_lr=false, agent.kl_target=0.01, agent.learning_rate=0.00025, agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.anneal_lr=false, agent.kl_target=0.01, agent.learning_rate=0.00025, agent.overlap=true": {"arrays": ["asyncAgentAnnealLrFalseAgentKlTarget001AgentLearningRate000025AgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 460.0}, "date": "2026-12-01T08:28:01.701158+00:00", "group": "agent.anneal_lr=false, agent.kl_target=0.01, agent.learning_rate=0.00025, agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}, "agent.anneal_lr=true, agent.kl_target=null, agent.learning_rate=0.00025, agent.overlap=true": {"arrays": ["asyncAgentAnnealLrTrueAgentKlTargetNullAgentLearningRate000025AgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 460.0}, "date": "2026-12-01T08:28:02.040912+00:00", "group": "agent.anneal_lr=true, agent.kl_target=null, agent.learning_rate=0.00025, agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}, "agent.anneal_lr=true, agent.kl_target=null, agent.learning_rate=0.0005, agent.overlap=true": {"arrays": ["asyncAgentAnnealLrTrueAgentKlTargetNullAgentLearningRate00005AgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 460.0}, "date": "2026-12-01T08:28:01.897798+00:00", "group": "agent.anneal_lr=true, agent.kl_target=null, agent.learning_rate=0.0005, agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
