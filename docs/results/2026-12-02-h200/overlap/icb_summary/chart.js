const recvRaw = [
  { n: 1, thr: 1284, thr_lo: 1196, thr_hi: 1373 },
  { n: 8, thr: 6890, thr_lo: 6778, thr_hi: 7001 },
];

const agentOnlyRaw = [
  { n: 1, thr: 5637, thr_lo: 5507, thr_hi: 5767 },
  { n: 8, thr: 34179, thr_lo: 33539, thr_hi: 34820 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": true, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:48:43.492236+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
