const recvRaw = [
  { n: 1, thr: 977, thr_lo: 898, thr_hi: 1056 },
  { n: 8, thr: 6225, thr_lo: 5173, thr_hi: 7277 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4902, thr_lo: 3532, thr_hi: 6272 },
  { n: 8, thr: 31457, thr_lo: 22486, thr_hi: 40427 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:05:55.729844+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
