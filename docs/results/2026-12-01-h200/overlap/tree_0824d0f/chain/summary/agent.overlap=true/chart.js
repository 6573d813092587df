const stepRaw = [
  { n: 1, thr: 933, thr_lo: 830, thr_hi: 1035 },
  { n: 8, thr: 4959, thr_lo: 4708, thr_hi: 5211 },
];

const recvRaw = [
  { n: 1, thr: 1006, thr_lo: 911, thr_hi: 1101 },
  { n: 8, thr: 5827, thr_lo: 5477, thr_hi: 6177 },
];

const agentOnlyRaw = [
  { n: 1, thr: 5100, thr_lo: 4655, thr_hi: 5546 },
  { n: 8, thr: 31203, thr_lo: 28487, thr_hi: 33918 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T10:49:40.522547+00:00", "group": "agent.overlap=true", "frameskip": 5, "unit": "env_steps/s"};
