#!/bin/bash
# Issue 22's bar at many envs: graphed PPO's async loop with agent.overlap against env_only at the
# same batches, in paired rounds, with agent_only (no emulators: a quick job) so that the collector
# has both probes and reports the loop's efficiency, and no loop without overlap (at 256 envs each
# job spends about 28-45 s creating its emulators). Each round: env_only, agent_only, the loop.
#   bash bench/overlap_bound_rounds.sh OUT NUM_ENVS GROUPS ROUNDS BENCH_STEPS REPS
#   bash bench/overlap_bound_rounds.sh /tmp/b256 256 2 3 600 2
#   python -m ppo_bench.collect /tmp/b256
set -u
out=$1 n=$2 groups=$3 rounds=$4 steps=$5 reps=$6
common="agent.algo=ppo agent.runtime=graphed env.num_envs=$n mode.groups=$groups schedule.reps=$reps
        schedule.bench_steps=$steps schedule.warmup=64"
for (( r = 0; r < rounds; r++ )); do
  for job in "env_only agent.overlap=false" "agent_only agent.overlap=true" "async agent.overlap=true"; do
    set -- $job
    timeout 300 python run.py $common mode=$1 $2 round=$r hydra.run.dir="$out/n${n}_round${r}_$1" 2>&1 \
      | grep -E "env_steps/s|FAILED|failed|rror" | cut -c1-200
  done
done
