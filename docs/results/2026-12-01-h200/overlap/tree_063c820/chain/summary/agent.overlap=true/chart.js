const stepRaw = [
  { n: 1, thr: 963, thr_lo: 829, thr_hi: 1097 },
  { n: 8, thr: 5811, thr_lo: 5305, thr_hi: 6317 },
];

const agentOnlyRaw = [
  { n: 1, thr: 5382, thr_lo: 4815, thr_hi: 5949 },
  { n: 8, thr: 31280, thr_lo: 27403, thr_hi: 35157 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T08:33:49.510039+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
