const recvRaw = [
  { n: 1, thr: 1128, thr_lo: 578, thr_hi: 1678 },
  { n: 8, thr: 5909, thr_lo: 4813, thr_hi: 7004 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4902, thr_lo: 3545, thr_hi: 6259 },
  { n: 8, thr: 30708, thr_lo: 21565, thr_hi: 39852 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:08:26.265244+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
