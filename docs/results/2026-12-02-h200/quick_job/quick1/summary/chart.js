const stepRaw = [
  { n: 1, thr: 362, thr_lo: 256, thr_hi: 513 },
  { n: 8, thr: 1802, thr_lo: 1532, thr_hi: 2120 },
];

const recvRaw = [
  { n: 1, thr: 367, thr_lo: 263, thr_hi: 511 },
  { n: 8, thr: 2301, thr_lo: 2111, thr_hi: 2507 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 2, "bench_steps": 200, "warmup": 16, "profile": false, "interleave": null, "total_env_steps": null, "target_return": null, "return_window": 20, "stop_at_target": false, "max_seconds": null}, "date": "2026-12-02T15:10:55.061478+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s", "measured": {"game": "pong", "network": "nature_cnn", "runtime": "compiled", "backend": "ale", "device": "cuda (NVIDIA H200)", "cpu": "Intel(R) Xeon(R) Processor, 16 CPUs", "torch": "2.11.0+cu130", "ale_py": "0.12.1", "python": "3.12.3", "commit": "7c5b19df2a2d with uncommitted changes", "dirty": true, "command": ["python run.py -m +preset=quick"]}};
