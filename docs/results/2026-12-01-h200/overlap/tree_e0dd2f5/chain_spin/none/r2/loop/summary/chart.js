const recvRaw = [
  { n: 1, thr: 814, thr_lo: 746, thr_hi: 882 },
  { n: 8, thr: 5103, thr_lo: 4264, thr_hi: 5943 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4463, thr_lo: 3315, thr_hi: 5610 },
  { n: 8, thr: 31967, thr_lo: 21652, thr_hi: 42282 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:07:12.603751+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
