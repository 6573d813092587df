const sendrecvAgentOverlapFalseRaw = [
  { n: 8, thr: 4715, thr_lo: 4273, thr_hi: 5157 },
];

const envOnlyAgentOverlapFalseRaw = [
  { n: 8, thr: 5861, thr_lo: 5155, thr_hi: 6566 },
];

const agentOnlyAgentOverlapFalseRaw = [
  { n: 8, thr: 23230, thr_lo: 22192, thr_hi: 24268 },
];

const sendrecvAgentOverlapTrueRaw = [
  { n: 8, thr: 4939, thr_lo: 4629, thr_hi: 5250 },
];

const agentOnlyAgentOverlapTrueRaw = [
  { n: 8, thr: 32567, thr_lo: 31248, thr_hi: 33886 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false": {"arrays": ["sendrecvAgentOverlapFalseRaw", "envOnlyAgentOverlapFalseRaw", "agentOnlyAgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T01:33:17.011597+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true": {"arrays": ["sendrecvAgentOverlapTrueRaw", "agentOnlyAgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T01:33:27.656638+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
