const stepRaw = [
  { n: 1, thr: 578, thr_lo: 305, thr_hi: 850 },
  { n: 8, thr: 4101, thr_lo: 3198, thr_hi: 5005 },
  { n: 64, thr: 14069, thr_lo: 12567, thr_hi: 15572 },
  { n: 256, thr: 16997, thr_lo: 14812, thr_hi: 19182 },
];

const recvRaw = [
  { n: 1, thr: 634, thr_lo: 476, thr_hi: 792 },
  { n: 8, thr: 4065, thr_lo: 3442, thr_hi: 4688 },
  { n: 64, thr: 14512, thr_lo: 13082, thr_hi: 15943 },
  { n: 256, thr: 18953, thr_lo: 15363, thr_hi: 22544 },
];

const asyncRaw = [
  { n: 8, thr: 4590, thr_lo: 2744, thr_hi: 6436 },
  { n: 64, thr: 20348, thr_lo: 17189, thr_hi: 23507 },
  { n: 256, thr: 23497, thr_lo: 18663, thr_hi: 28331 },
];

const envOnlyRaw = [
  { n: 1, thr: 1635, thr_lo: 953, thr_hi: 2317 },
  { n: 8, thr: 9267, thr_lo: 8596, thr_hi: 9939 },
  { n: 64, thr: 20567, thr_lo: 15155, thr_hi: 25980 },
  { n: 256, thr: 24912, thr_lo: 8713, thr_hi: 41110 },
];

const agentOnlyGroups1Raw = [
  { n: 1, thr: 1416, thr_lo: 536, thr_hi: 2297 },
  { n: 8, thr: 13467, thr_lo: 10439, thr_hi: 16494 },
  { n: 64, thr: 71783, thr_lo: 63840, thr_hi: 79726 },
  { n: 256, thr: 103928, thr_lo: 70823, thr_hi: 137032 },
];

const agentOnlyGroups2Raw = [
  { n: 8, thr: 8899, thr_lo: 6483, thr_hi: 11314 },
  { n: 64, thr: 52311, thr_lo: 46286, thr_hi: 58335 },
  { n: 256, thr: 92483, thr_lo: 90012, thr_hi: 94954 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 256, "warmup": 32}, "date": "2026-11-29T21:44:06.298302+00:00", "group": "agent.name=nature_cnn, schedule.reps=1", "frameskip": 5, "unit": "env_steps/s"};
