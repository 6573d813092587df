const stepRaw = [
  { n: 1, thr: 1003, thr_lo: 962, thr_hi: 1045 },
  { n: 8, thr: 5238, thr_lo: 4958, thr_hi: 5518 },
];

const envOnlyRaw = [
  { n: 1, thr: 1769, thr_lo: 1523, thr_hi: 2015 },
  { n: 8, thr: 8683, thr_lo: 7726, thr_hi: 9640 },
];

const agentOnlyRaw = [
  { n: 1, thr: 3846, thr_lo: 3526, thr_hi: 4165 },
  { n: 8, thr: 25409, thr_lo: 22646, thr_hi: 28172 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T08:33:43.758838+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
