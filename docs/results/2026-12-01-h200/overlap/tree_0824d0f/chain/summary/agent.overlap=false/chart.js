const stepRaw = [
  { n: 1, thr: 842, thr_lo: 764, thr_hi: 919 },
  { n: 8, thr: 4672, thr_lo: 4309, thr_hi: 5036 },
];

const recvRaw = [
  { n: 1, thr: 970, thr_lo: 913, thr_hi: 1026 },
  { n: 8, thr: 5372, thr_lo: 5105, thr_hi: 5638 },
];

const envOnlyRaw = [
  { n: 1, thr: 1533, thr_lo: 1288, thr_hi: 1779 },
  { n: 8, thr: 8188, thr_lo: 7740, thr_hi: 8637 },
];

const agentOnlyRaw = [
  { n: 1, thr: 3717, thr_lo: 3468, thr_hi: 3965 },
  { n: 8, thr: 24989, thr_lo: 22915, thr_hi: 27064 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 3, "bench_steps": 300, "warmup": 64, "profile": true, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-01T10:49:33.166104+00:00", "group": "agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
