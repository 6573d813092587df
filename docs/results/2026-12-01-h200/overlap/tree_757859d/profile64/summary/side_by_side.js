const asyncAgentOverlapFalseRaw = [
  { n: 64, thr: 19275, thr_lo: 18522, thr_hi: 20029 },
];

const envOnlyAgentOverlapFalseRaw = [
  { n: 64, thr: 23124, thr_lo: 20955, thr_hi: 25292 },
];

const asyncAgentOverlapTrueRaw = [
  { n: 64, thr: 21212, thr_lo: 19868, thr_hi: 22555 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false": {"arrays": ["asyncAgentOverlapFalseRaw", "envOnlyAgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 1500, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T15:23:25.815619+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true": {"arrays": ["asyncAgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 1500, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T15:22:55.619284+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
