const recvRaw = [
  { n: 1, thr: 832, thr_lo: 567, thr_hi: 1097 },
  { n: 8, thr: 5162, thr_lo: 4586, thr_hi: 5737 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4562, thr_lo: 3339, thr_hi: 5785 },
  { n: 8, thr: 31894, thr_lo: 21371, thr_hi: 42418 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:04:33.579051+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
