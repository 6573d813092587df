const envOnlyAgentOverlapFalseRaw = [
  { n: 1, thr: 1296, thr_lo: 1191, thr_hi: 1402 },
  { n: 8, thr: 7672, thr_lo: 7011, thr_hi: 8333 },
];

const sendrecvAgentOverlapTrueRaw = [
  { n: 1, thr: 1044, thr_lo: 925, thr_hi: 1164 },
  { n: 8, thr: 5988, thr_lo: 5678, thr_hi: 6298 },
];

const agentOnlyAgentOverlapTrueRaw = [
  { n: 1, thr: 4904, thr_lo: 4523, thr_hi: 5285 },
  { n: 8, thr: 31439, thr_lo: 29019, thr_hi: 33859 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false": {"arrays": ["envOnlyAgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:07:42.538000+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true": {"arrays": ["sendrecvAgentOverlapTrueRaw", "agentOnlyAgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:08:26.265244+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
