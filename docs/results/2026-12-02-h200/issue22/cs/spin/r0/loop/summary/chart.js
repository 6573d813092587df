const recvRaw = [
  { n: 1, thr: 1036, thr_lo: 964, thr_hi: 1108 },
  { n: 8, thr: 5808, thr_lo: 5644, thr_hi: 5972 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4344, thr_lo: 4126, thr_hi: 4561 },
  { n: 8, thr: 31026, thr_lo: 30739, thr_hi: 31312 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:29:36.894488+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
