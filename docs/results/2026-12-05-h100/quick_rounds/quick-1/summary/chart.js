const stepRaw = [
  { n: 1, thr: 427, thr_lo: 388, thr_hi: 466 },
  { n: 8, thr: 2753, thr_lo: 2565, thr_hi: 2947 },
];

const recvRaw = [
  { n: 1, thr: 421, thr_lo: 396, thr_hi: 446 },
  { n: 8, thr: 4037, thr_lo: 3756, thr_hi: 4327 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H100 80GB HBM3", "schedule": {"reps": 5, "bench_steps": 200, "warmup": 16, "profile": false, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null, "precision": 0.1, "max_reps": 20, "max_measure_s": 30.0}, "date": "2026-12-05T17:29:10.361037+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s", "measured": {"game": "pong", "network": "nature_cnn", "runtime": "compiled", "backend": "ale", "device": "cuda (NVIDIA H100 80GB HBM3)", "cpu": "Intel(R) Xeon(R) Processor, 16 CPUs", "torch": "2.11.0+cu130", "ale_py": "0.12.1", "python": "3.12.3", "commit": "78b7bb2a3841 with uncommitted changes", "dirty": true, "command": ["python run.py -m +preset=quick"]}};
