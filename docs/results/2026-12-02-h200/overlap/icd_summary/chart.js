const recvRaw = [
  { n: 8, thr: 5245, thr_lo: 5019, thr_hi: 5471 },
];

const agentOnlyRaw = [
  { n: 8, thr: 30317, thr_lo: 29444, thr_hi: 31189 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": true, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T05:47:10.213698+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
