const recvRaw = [
  { n: 1, thr: 830, thr_lo: 805, thr_hi: 855 },
  { n: 8, thr: 5502, thr_lo: 5139, thr_hi: 5865 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4797, thr_lo: 4594, thr_hi: 5001 },
  { n: 8, thr: 30849, thr_lo: 29330, thr_hi: 32368 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:27:51.935095+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
