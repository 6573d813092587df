const recvRaw = [
  { n: 1, thr: 1029, thr_lo: 794, thr_hi: 1265 },
  { n: 8, thr: 5346, thr_lo: 4710, thr_hi: 5982 },
];

const agentOnlyRaw = [
  { n: 1, thr: 5150, thr_lo: 4991, thr_hi: 5308 },
  { n: 8, thr: 31739, thr_lo: 28512, thr_hi: 34965 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:33:21.004908+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
