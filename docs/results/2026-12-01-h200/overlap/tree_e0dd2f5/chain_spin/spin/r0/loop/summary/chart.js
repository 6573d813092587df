const recvRaw = [
  { n: 1, thr: 1027, thr_lo: 605, thr_hi: 1449 },
  { n: 8, thr: 5831, thr_lo: 4880, thr_hi: 6783 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4908, thr_lo: 3381, thr_hi: 6435 },
  { n: 8, thr: 32152, thr_lo: 23726, thr_hi: 40578 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:03:11.822985+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
