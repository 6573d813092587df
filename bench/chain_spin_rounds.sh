#!/bin/bash
# Issue 22 on the GPU machine: the 1- and 8-env chain (sendrecv, one batch, graphed PPO with
# overlap) beside the probes that bound it (env_only without an agent, agent_only with overlap),
# in paired rounds, each round once as the machine is and once with a SCHED_IDLE spinner on every
# CPU (bench/idle_hold.py --spin: no vCPU halts, so a thread that wakes does not wait for one).
# Each condition's results go under OUT/<none|spin>/r<round>/, to be collected per condition.
#   bash bench/chain_spin_rounds.sh OUT [ROUNDS] [BENCH_STEPS] [REPS]
set -u
out=$1 rounds=${2:-3} steps=${3:-300} reps=${4:-3}
common="agent.algo=ppo agent.runtime=graphed mode.groups=1 env.num_envs=1,8 schedule.reps=$reps
  schedule.bench_steps=$steps schedule.warmup=64 schedule.profile=true stall_timeout_s=45"
for r in $(seq 0 $(( rounds - 1 ))); do
  for cond in none spin; do
    flag=""; [ $cond = spin ] && flag=--spin
    dir=$out/$cond/r$r
    timeout 150 python bench/idle_hold.py $flag -- python run.py -m $common round=$r mode=env_only \
      agent.overlap=false hydra.sweep.dir=$dir/env 2>&1 | grep -E "env_steps/s|FAILED|failed|rror|stall|progress" | cut -c1-160
    timeout 200 python bench/idle_hold.py $flag -- python run.py -m $common round=$r mode=agent_only,sendrecv \
      agent.overlap=true hydra.sweep.dir=$dir/loop 2>&1 | grep -E "FAILED|failed|rror|stall|progress" | cut -c1-160
    echo "round $r $cond done $(date +%T)"
  done
done
