const stepRaw = [
  { n: 1, thr: 894, thr_lo: 803, thr_hi: 986 },
];

const asyncRaw = [
  { n: 8, thr: 6448, thr_lo: 6333, thr_hi: 6564 },
  { n: 64, thr: 17193, thr_lo: 16635, thr_hi: 17751 },
];

const envOnlyGroups1Raw = [
  { n: 1, thr: 1388, thr_lo: 957, thr_hi: 1818 },
];

const envOnlyGroups2Raw = [
  { n: 8, thr: 8615, thr_lo: 8500, thr_hi: 8731 },
  { n: 64, thr: 20100, thr_lo: 18075, thr_hi: 22124 },
];

const agentOnlyGroups1Raw = [
  { n: 1, thr: 5247, thr_lo: 4939, thr_hi: 5555 },
];

const agentOnlyGroups2Raw = [
  { n: 8, thr: 23019, thr_lo: 22030, thr_hi: 24009 },
  { n: 64, thr: 94349, thr_lo: 89486, thr_hi: 99213 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T11:57:46.501961+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
