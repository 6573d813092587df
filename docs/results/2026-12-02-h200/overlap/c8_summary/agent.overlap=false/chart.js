const recvRaw = [
  { n: 8, thr: 4715, thr_lo: 4273, thr_hi: 5157 },
];

const envOnlyRaw = [
  { n: 8, thr: 5861, thr_lo: 5155, thr_hi: 6566 },
];

const agentOnlyRaw = [
  { n: 8, thr: 23230, thr_lo: 22192, thr_hi: 24268 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T01:33:17.011597+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
