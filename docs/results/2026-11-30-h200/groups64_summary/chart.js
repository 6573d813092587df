const asyncGroups2Raw = [
  { n: 64, thr: 23591, thr_lo: 16498, thr_hi: 30683 },
];

const asyncGroups4Raw = [
  { n: 64, thr: 22676, thr_lo: 14646, thr_hi: 30706 },
];

const asyncGroups8Raw = [
  { n: 64, thr: 17352, thr_lo: 15471, thr_hi: 19232 },
];

const envOnlyGroups2Raw = [
  { n: 64, thr: 29210, thr_lo: 18377, thr_hi: 40043 },
];

const envOnlyGroups4Raw = [
  { n: 64, thr: 27828, thr_lo: 18847, thr_hi: 36809 },
];

const envOnlyGroups8Raw = [
  { n: 64, thr: 27309, thr_lo: 15668, thr_hi: 38950 },
];

const agentOnlyGroups2Raw = [
  { n: 64, thr: 98450, thr_lo: 95661, thr_hi: 101239 },
];

const agentOnlyGroups4Raw = [
  { n: 64, thr: 71506, thr_lo: 62960, thr_hi: 80052 },
];

const agentOnlyGroups8Raw = [
  { n: 64, thr: 48341, thr_lo: 41569, thr_hi: 55112 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": false, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T13:06:39.259891+00:00", "group": "all", "frameskip": 5, "unit": "env_steps/s"};
