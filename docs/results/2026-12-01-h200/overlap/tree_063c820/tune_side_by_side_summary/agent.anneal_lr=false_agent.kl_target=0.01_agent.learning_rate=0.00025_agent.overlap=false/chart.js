const asyncRaw = [
  { n: 64, thr: 2528, thr_lo: 2498, thr_hi: 2558 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 1000, "warmup": 64, "profile": false, "total_env_steps": 4000000, "target_return": 18.0, "return_window": 20, "stop_at_target": true, "max_seconds": 460.0}, "date": "2026-12-01T08:28:01.962202+00:00", "group": "agent.anneal_lr=false, agent.kl_target=0.01, agent.learning_rate=0.00025, agent.overlap=false", "frameskip": 5, "unit": "env_steps/s"};
