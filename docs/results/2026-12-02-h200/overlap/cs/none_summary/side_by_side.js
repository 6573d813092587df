const envOnlyAgentOverlapFalseRaw = [
  { n: 1, thr: 1122, thr_lo: 1072, thr_hi: 1172 },
  { n: 8, thr: 5908, thr_lo: 5389, thr_hi: 6428 },
];

const sendrecvAgentOverlapTrueRaw = [
  { n: 1, thr: 811, thr_lo: 772, thr_hi: 850 },
  { n: 8, thr: 4972, thr_lo: 4474, thr_hi: 5470 },
];

const agentOnlyAgentOverlapTrueRaw = [
  { n: 1, thr: 4726, thr_lo: 4622, thr_hi: 4829 },
  { n: 8, thr: 31386, thr_lo: 30208, thr_hi: 32565 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false": {"arrays": ["envOnlyAgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:30:16.765027+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true": {"arrays": ["sendrecvAgentOverlapTrueRaw", "agentOnlyAgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:31:33.977813+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
