const stepAgentRuntimeCompiledRaw = [
  { n: 1, thr: 516, thr_lo: 480, thr_hi: 552 },
];

const stepAgentRuntimeGraphedRaw = [
  { n: 1, thr: 1038, thr_lo: 912, thr_hi: 1164 },
];

const graphedOverCompiledStep = [
  { n: 1, ratio: 2.006, lo: 1.774, hi: 2.27, paired: 2.006, paired_lo: 1.742, paired_hi: 2.311 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.runtime=compiled": {"arrays": ["stepAgentRuntimeCompiledRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:52:21.966967+00:00", "group": "agent.runtime=compiled", "frameskip": 5, "unit": "env_steps/s"}, "agent.runtime=graphed": {"arrays": ["stepAgentRuntimeGraphedRaw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:52:24.697595+00:00", "group": "agent.runtime=graphed", "frameskip": 5, "unit": "env_steps/s"}}, "ratios": {"runtime": {"arrays": ["graphedOverCompiledStep"], "over": "compiled", "paired": "per-round ratios of jobs of the same round; null under 2 rounds"}}};
