const recvRaw = [
  { n: 1, thr: 1006, thr_lo: 947, thr_hi: 1064 },
  { n: 8, thr: 5907, thr_lo: 5689, thr_hi: 6125 },
];

const agentOnlyRaw = [
  { n: 1, thr: 5190, thr_lo: 5038, thr_hi: 5341 },
  { n: 8, thr: 34937, thr_lo: 34105, thr_hi: 35769 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T01:50:07.086172+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
