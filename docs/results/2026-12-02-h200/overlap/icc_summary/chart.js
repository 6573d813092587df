const recvRaw = [
  { n: 8, thr: 6034, thr_lo: 5669, thr_hi: 6399 },
];

const agentOnlyRaw = [
  { n: 8, thr: 31539, thr_lo: 30047, thr_hi: 33030 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": true, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T05:34:47.892539+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
