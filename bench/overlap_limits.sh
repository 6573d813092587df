#!/bin/bash
# On the GPU machine: graphed PPO's loops with and without agent.overlap beside the probes
# that bound them (env_only once, agent_only with and without overlap), at the same batches, in
# paired rounds, as one sweep (rounds outermost, so each round's jobs run back to back). A mode
# that does not apply at a groups value (step at 2, async at 1) is skipped by the sweep.
#   bash bench/overlap_limits.sh OUT NUM_ENVS GROUPS LOOPS [ROUNDS] [BENCH_STEPS] [REPS]
#   bash bench/overlap_limits.sh /tmp/ov64 64 2 async 3 400
#   bash bench/overlap_limits.sh /tmp/ov8 8 1,2 step,async 3 300 3
set -u
out=$1 n=$2 groups=$3 loops=$4 rounds=${5:-3} steps=${6:-400} reps=${7:-1}
timeout 590 python run.py -m agent.algo=ppo agent.runtime=graphed schedule.reps=$reps schedule.bench_steps=$steps \
  schedule.warmup=64 hydra.sweep.dir=$out env.num_envs=$n round=$(seq -s, 0 $(( rounds - 1 ))) \
  mode.groups=$groups mode=env_only,agent_only,$loops agent.overlap=false,true 2>&1 \
  | grep -E "env_steps/s|FAILED|failed|rror" | cut -c1-220
