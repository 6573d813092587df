const stepAgentOverlapFalseRaw = [
  { n: 1, thr: 1003, thr_lo: 962, thr_hi: 1045 },
  { n: 8, thr: 5238, thr_lo: 4958, thr_hi: 5518 },
];

const envOnlyAgentOverlapFalseRaw = [
  { n: 1, thr: 1769, thr_lo: 1523, thr_hi: 2015 },
  { n: 8, thr: 8683, thr_lo: 7726, thr_hi: 9640 },
];

const agentOnlyAgentOverlapFalseRaw = [
  { n: 1, thr: 3846, thr_lo: 3526, thr_hi: 4165 },
  { n: 8, thr: 25409, thr_lo: 22646, thr_hi: 28172 },
];

const stepAgentOverlapTrueRaw = [
  { n: 1, thr: 963, thr_lo: 829, thr_hi: 1097 },
  { n: 8, thr: 5811, thr_lo: 5305, thr_hi: 6317 },
];

const agentOnlyAgentOverlapTrueRaw = [
  { n: 1, thr: 5382, thr_lo: 4815, thr_hi: 5949 },
  { n: 8, thr: 31280, thr_lo: 27403, thr_hi: 35157 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false": {"arrays": ["stepAgentOverlapFalseRaw", "envOnlyAgentOverlapFalseRaw", "agentOnlyAgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T08:33:43.758838+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true": {"arrays": ["stepAgentOverlapTrueRaw", "agentOnlyAgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T08:33:49.510039+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
