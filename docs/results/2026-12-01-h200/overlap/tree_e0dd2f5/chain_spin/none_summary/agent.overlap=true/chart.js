const recvRaw = [
  { n: 1, thr: 823, thr_lo: 780, thr_hi: 866 },
  { n: 8, thr: 5155, thr_lo: 4974, thr_hi: 5336 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4418, thr_lo: 4091, thr_hi: 4746 },
  { n: 8, thr: 30810, thr_lo: 27905, thr_hi: 33714 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T23:07:12.603751+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
