const stepRaw = [
  { n: 8, thr: 4051, thr_lo: 3002, thr_hi: 5100 },
  { n: 64, thr: 13070, thr_lo: 8593, thr_hi: 17547 },
];

const recvRaw = [
  { n: 8, thr: 4402, thr_lo: 1018, thr_hi: 7785 },
  { n: 64, thr: 13843, thr_lo: 4898, thr_hi: 22787 },
];

const asyncRaw = [
  { n: 8, thr: 4901, thr_lo: 597, thr_hi: 9205 },
  { n: 64, thr: 15746, thr_lo: 11402, thr_hi: 20091 },
];

const envOnlyGroups1Raw = [
  { n: 8, thr: 8568, thr_lo: 6826, thr_hi: 10310 },
  { n: 64, thr: 19253, thr_lo: 4087, thr_hi: 34418 },
];

const envOnlyGroups2Raw = [
  { n: 8, thr: 10687, thr_lo: 1014, thr_hi: 20359 },
  { n: 64, thr: 31240, thr_lo: -13391, thr_hi: 75872 },
];

const chartMeta = {"game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true, "total_env_steps": null, "target_return": null, "return_window": 20, "max_seconds": null}, "date": "2026-11-30T12:51:02.443470+00:00", "group": "env.backend=envpool, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"};
