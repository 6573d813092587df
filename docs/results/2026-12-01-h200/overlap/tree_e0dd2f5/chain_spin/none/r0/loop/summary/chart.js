const recvRaw = [
  { n: 1, thr: 822, thr_lo: 799, thr_hi: 846 },
  { n: 8, thr: 5200, thr_lo: 4661, thr_hi: 5738 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4231, thr_lo: 3169, thr_hi: 5292 },
  { n: 8, thr: 28568, thr_lo: 20472, thr_hi: 36663 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:01:58.286691+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
