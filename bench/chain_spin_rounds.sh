#!/bin/bash
# Issue 22 on the GPU machine: the 1- and 8-env chain (sendrecv, one batch, graphed PPO with
# overlap) beside the probes that bound it (env_only without an agent, agent_only with overlap),
# in paired rounds as the machine is and with a spinner on every CPU (bench/spin_rounds.sh).
# Results under OUT/<none|spin>/r<round>/{env,loop}, to be collected per condition.
#   bash bench/chain_spin_rounds.sh OUT [ROUNDS] [BENCH_STEPS] [REPS]
set -u
out=$1 rounds=${2:-3} steps=${3:-300} reps=${4:-3}
common="agent.algo=ppo agent.runtime=graphed mode.groups=1 env.num_envs=1,8 schedule.reps=$reps
  schedule.bench_steps=$steps schedule.warmup=64 schedule.profile=true"
bash "$(dirname "$0")/spin_rounds.sh" "$out" "$rounds" env:"$common mode=env_only agent.overlap=false" \
  loop:"$common mode=agent_only,sendrecv agent.overlap=true"
