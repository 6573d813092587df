const asyncRaw = [
  { n: 256, thr: 19840, thr_lo: 19840, thr_hi: 19840 },
];

const envOnlyRaw = [
  { n: 256, thr: 25699, thr_lo: 25699, thr_hi: 25699 },
];

const agentOnlyRaw = [
  { n: 256, thr: 131927, thr_lo: 131927, thr_hi: 131927 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 300, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-12-01T03:56:57.726105+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
