const asyncAgentOverlapFalseRaw = [
  { n: 64, thr: 17876, thr_lo: 15614, thr_hi: 20137 },
];

const envOnlyAgentOverlapFalseRaw = [
  { n: 64, thr: 20261, thr_lo: 18277, thr_hi: 22245 },
];

const agentOnlyAgentOverlapFalseRaw = [
  { n: 64, thr: 71082, thr_lo: 61628, thr_hi: 80536 },
];

const asyncAgentOverlapTrueRaw = [
  { n: 64, thr: 20010, thr_lo: 14387, thr_hi: 25634 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false": {"arrays": ["asyncAgentOverlapFalseRaw", "envOnlyAgentOverlapFalseRaw", "agentOnlyAgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-12-01T03:48:50.383885+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true": {"arrays": ["asyncAgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-12-01T03:49:05.075958+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
