const stepAgentRuntimeCompiledScheduleBenchSteps400Raw = [
  { n: 256, thr: 14881, thr_lo: 14881, thr_hi: 14881 },
];

const asyncAgentRuntimeCompiledScheduleBenchSteps400Raw = [
  { n: 256, thr: 19424, thr_lo: 17296, thr_hi: 21552 },
];

const agentOnlyAgentRuntimeCompiledScheduleBenchSteps400Raw = [
  { n: 256, thr: 104457, thr_lo: 104457, thr_hi: 104457 },
];

const stepAgentRuntimeCompiledScheduleBenchSteps500Raw = [
  { n: 1, thr: 618, thr_lo: 607, thr_hi: 629 },
  { n: 8, thr: 4042, thr_lo: -2387, thr_hi: 10471 },
  { n: 64, thr: 14137, thr_lo: 6098, thr_hi: 22176 },
];

const asyncAgentRuntimeCompiledScheduleBenchSteps500Raw = [
  { n: 8, thr: 3989, thr_lo: -733, thr_hi: 8710 },
  { n: 64, thr: 18793, thr_lo: -4024, thr_hi: 41610 },
];

const envOnlyGroups1AgentRuntimeCompiledScheduleBenchSteps500Raw = [
  { n: 1, thr: 1959, thr_lo: 717, thr_hi: 3201 },
  { n: 8, thr: 7794, thr_lo: -2477, thr_hi: 18066 },
  { n: 64, thr: 19463, thr_lo: 9592, thr_hi: 29333 },
];

const envOnlyGroups2AgentRuntimeCompiledScheduleBenchSteps500Raw = [
  { n: 8, thr: 9069, thr_lo: 1403, thr_hi: 16736 },
  { n: 64, thr: 24809, thr_lo: -10003, thr_hi: 59622 },
];

const agentOnlyGroups1AgentRuntimeCompiledScheduleBenchSteps500Raw = [
  { n: 1, thr: 1685, thr_lo: -739, thr_hi: 4109 },
  { n: 8, thr: 11696, thr_lo: -10730, thr_hi: 34121 },
  { n: 64, thr: 95437, thr_lo: -28385, thr_hi: 219259 },
];

const agentOnlyGroups2AgentRuntimeCompiledScheduleBenchSteps500Raw = [
  { n: 8, thr: 8039, thr_lo: -11150, thr_hi: 27227 },
  { n: 64, thr: 75874, thr_lo: 36941, thr_hi: 114808 },
];

const stepAgentRuntimeGraphedScheduleBenchSteps400Raw = [
  { n: 256, thr: 16336, thr_lo: 16336, thr_hi: 16336 },
];

const asyncAgentRuntimeGraphedScheduleBenchSteps400Raw = [
  { n: 256, thr: 21823, thr_lo: 21823, thr_hi: 21823 },
];

const envOnlyGroups1AgentRuntimeGraphedScheduleBenchSteps400Raw = [
  { n: 256, thr: 25861, thr_lo: 25861, thr_hi: 25861 },
];

const envOnlyGroups2AgentRuntimeGraphedScheduleBenchSteps400Raw = [
  { n: 256, thr: 27506, thr_lo: 17258, thr_hi: 37754 },
];

const agentOnlyGroups1AgentRuntimeGraphedScheduleBenchSteps400Raw = [
  { n: 256, thr: 106737, thr_lo: 106737, thr_hi: 106737 },
];

const agentOnlyGroups2AgentRuntimeGraphedScheduleBenchSteps400Raw = [
  { n: 256, thr: 129099, thr_lo: 129099, thr_hi: 129099 },
];

const stepAgentRuntimeGraphedScheduleBenchSteps500Raw = [
  { n: 1, thr: 1173, thr_lo: -2852, thr_hi: 5198 },
  { n: 8, thr: 6225, thr_lo: -3721, thr_hi: 16170 },
  { n: 64, thr: 14725, thr_lo: 9783, thr_hi: 19667 },
];

const asyncAgentRuntimeGraphedScheduleBenchSteps500Raw = [
  { n: 8, thr: 7520, thr_lo: 4464, thr_hi: 10576 },
  { n: 64, thr: 21115, thr_lo: 1739, thr_hi: 40490 },
];

const envOnlyGroups1AgentRuntimeGraphedScheduleBenchSteps500Raw = [
  { n: 1, thr: 2091, thr_lo: 428, thr_hi: 3754 },
  { n: 8, thr: 8706, thr_lo: 2194, thr_hi: 15217 },
  { n: 64, thr: 18586, thr_lo: 17063, thr_hi: 20109 },
];

const envOnlyGroups2AgentRuntimeGraphedScheduleBenchSteps500Raw = [
  { n: 8, thr: 8980, thr_lo: -3986, thr_hi: 21947 },
  { n: 64, thr: 26558, thr_lo: -11093, thr_hi: 64208 },
];

const agentOnlyGroups1AgentRuntimeGraphedScheduleBenchSteps500Raw = [
  { n: 1, thr: 6235, thr_lo: 5087, thr_hi: 7383 },
  { n: 8, thr: 38352, thr_lo: 26480, thr_hi: 50223 },
  { n: 64, thr: 122404, thr_lo: 117013, thr_hi: 127794 },
];

const agentOnlyGroups2AgentRuntimeGraphedScheduleBenchSteps500Raw = [
  { n: 8, thr: 23886, thr_lo: 22820, thr_hi: 24951 },
  { n: 64, thr: 102465, thr_lo: 98572, thr_hi: 106359 },
];

const chartMeta = {"unit": "env_steps/s", "groups": {"agent.runtime=compiled, schedule.bench_steps=400": {"arrays": ["stepAgentRuntimeCompiledScheduleBenchSteps400Raw", "asyncAgentRuntimeCompiledScheduleBenchSteps400Raw", "agentOnlyAgentRuntimeCompiledScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:38:00.216067+00:00", "group": "agent.runtime=compiled, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}, "agent.runtime=compiled, schedule.bench_steps=500": {"arrays": ["stepAgentRuntimeCompiledScheduleBenchSteps500Raw", "asyncAgentRuntimeCompiledScheduleBenchSteps500Raw", "envOnlyGroups1AgentRuntimeCompiledScheduleBenchSteps500Raw", "envOnlyGroups2AgentRuntimeCompiledScheduleBenchSteps500Raw", "agentOnlyGroups1AgentRuntimeCompiledScheduleBenchSteps500Raw", "agentOnlyGroups2AgentRuntimeCompiledScheduleBenchSteps500Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": true}, "date": "2026-11-30T05:21:23.089613+00:00", "group": "agent.runtime=compiled, schedule.bench_steps=500", "frameskip": 5, "unit": "env_steps/s"}, "agent.runtime=graphed, schedule.bench_steps=400": {"arrays": ["stepAgentRuntimeGraphedScheduleBenchSteps400Raw", "asyncAgentRuntimeGraphedScheduleBenchSteps400Raw", "envOnlyGroups1AgentRuntimeGraphedScheduleBenchSteps400Raw", "envOnlyGroups2AgentRuntimeGraphedScheduleBenchSteps400Raw", "agentOnlyGroups1AgentRuntimeGraphedScheduleBenchSteps400Raw", "agentOnlyGroups2AgentRuntimeGraphedScheduleBenchSteps400Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 400, "warmup": 32, "profile": true}, "date": "2026-11-30T05:37:18.280888+00:00", "group": "agent.runtime=graphed, schedule.bench_steps=400", "frameskip": 5, "unit": "env_steps/s"}, "agent.runtime=graphed, schedule.bench_steps=500": {"arrays": ["stepAgentRuntimeGraphedScheduleBenchSteps500Raw", "asyncAgentRuntimeGraphedScheduleBenchSteps500Raw", "envOnlyGroups1AgentRuntimeGraphedScheduleBenchSteps500Raw", "envOnlyGroups2AgentRuntimeGraphedScheduleBenchSteps500Raw", "agentOnlyGroups1AgentRuntimeGraphedScheduleBenchSteps500Raw", "agentOnlyGroups2AgentRuntimeGraphedScheduleBenchSteps500Raw"], "game": "pong", "agent": "nature_cnn", "device": "cuda", "gpu": "NVIDIA H200", "schedule": {"reps": 1, "bench_steps": 500, "warmup": 32, "profile": true}, "date": "2026-11-30T05:21:24.986454+00:00", "group": "agent.runtime=graphed, schedule.bench_steps=500", "frameskip": 5, "unit": "env_steps/s"}}};
