const recvRaw = [
  { n: 1, thr: 791, thr_lo: 692, thr_hi: 890 },
  { n: 8, thr: 4442, thr_lo: 4173, thr_hi: 4711 },
];

const agentOnlyRaw = [
  { n: 1, thr: 4654, thr_lo: 4533, thr_hi: 4775 },
  { n: 8, thr: 31924, thr_lo: 29188, thr_hi: 34660 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 4, "bench_steps": 1000, "warmup": 64, "profile": false, "interleave": "env_only", "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T03:31:33.977813+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
