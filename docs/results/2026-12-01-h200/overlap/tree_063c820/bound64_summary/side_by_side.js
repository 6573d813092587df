const envOnlyAgentOverlapFalseRaw = [
  { n: 64, thr: 25595, thr_lo: 24548, thr_hi: 26641 },
];

const asyncAgentOverlapTrueRaw = [
  { n: 64, thr: 23868, thr_lo: 22348, thr_hi: 25388 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.overlap=false": {"arrays": ["envOnlyAgentOverlapFalseRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 2, "bench_steps": 1500, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T08:32:28.098707+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"}, "agent.overlap=true": {"arrays": ["asyncAgentOverlapTrueRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 2, "bench_steps": 1500, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T08:31:55.554600+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"}}};
