const recvRaw = [
  { n: 1, thr: 1033, thr_lo: 948, thr_hi: 1117 },
  { n: 8, thr: 5577, thr_lo: 5271, thr_hi: 5883 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4747, thr_lo: 4375, thr_hi: 5119 },
  { n: 8, thr: 31382, thr_lo: 30223, thr_hi: 32541 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:33:21.004908+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
