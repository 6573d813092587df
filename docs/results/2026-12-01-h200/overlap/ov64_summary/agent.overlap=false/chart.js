const asyncRaw = [
  { n: 64, thr: 17876, thr_lo: 15614, thr_hi: 20137 },
];

const envOnlyRaw = [
  { n: 64, thr: 20261, thr_lo: 18277, thr_hi: 22245 },
];

const agentOnlyRaw = [
  { n: 64, thr: 71082, thr_lo: 61628, thr_hi: 80536 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-12-01T03:48:50.383885+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
