#!/bin/bash
# Issue 22 on the GPU machine: graphed PPO's async loop with and without agent.overlap beside the
# probes that bound it (env_only, agent_only at the same 2 batches), in paired rounds, one sweep folder.
#   bash bench/overlap_limits.sh OUT NUM_ENVS [ROUNDS] [BENCH_STEPS]
set -u
out=$1 n=$2 rounds=${3:-2} steps=${4:-400}
common="agent.algo=ppo agent.runtime=graphed schedule.reps=1 schedule.bench_steps=$steps schedule.warmup=64
        collect=false hydra.sweep.dir=$out env.num_envs=$n mode.groups=2"
for round in $(seq 0 $(( rounds - 1 ))); do
  timeout 400 python run.py -m $common round=$round mode=env_only,agent_only 2>&1 | grep -E "env_steps/s|FAILED|skipped" | cut -c1-200
  timeout 400 python run.py -m $common round=$round mode=async agent.overlap=false,true 2>&1 | grep -E "env_steps/s|FAILED" | cut -c1-200
done
