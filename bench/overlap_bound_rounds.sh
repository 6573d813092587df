#!/bin/bash
# The loop against its emulators at many envs: graphed PPO's async loop with agent.overlap against env_only at the
# same batches, read rep by rep inside each job (schedule.interleave=env_only: env_only timed after
# each of the loop's reps, over the same emulators in the same process), one job per round, rounds
# back to back; the collector's interleaved section pools the pairs. One job per round, since at 256
# envs each job spends about 40 s on its start and its emulators.
#   bash bench/overlap_bound_rounds.sh OUT NUM_ENVS GROUPS ROUNDS BENCH_STEPS REPS
#   bash bench/overlap_bound_rounds.sh /tmp/b256 256 2 2 600 5
#   python -m ppo_bench.collect /tmp/b256
set -u
out=$1 n=$2 groups=$3 rounds=$4 steps=$5 reps=$6
for (( r = 0; r < rounds; r++ )); do
  timeout 300 python run.py agent.algo=ppo agent.runtime=graphed agent.overlap=true mode=async \
    mode.groups=$groups env.num_envs=$n schedule.reps=$reps schedule.bench_steps=$steps schedule.warmup=64 \
    schedule.interleave=env_only round=$r hydra.run.dir="$out/n${n}_round$r" 2>&1 \
    | grep -E "env_steps/s|FAILED|failed|rror" | cut -c1-240
done
