#!/bin/bash
# On the GPU machine: sweeps in paired rounds, each round once as the machine is and once
# with a SCHED_IDLE spinner on every CPU (bench/idle_hold.py --spin: no vCPU halts, so a thread
# that wakes does not wait for one), back to back. A NAME:"OVERRIDES" pair per sweep (run.py -m
# with OVERRIDES round=R, stall_timeout_s=45); its results go under OUT/<none|spin>/r<R>/NAME, to
# be collected per condition. Each sweep is cut after SWEEP_S seconds (default 200).
#   bash bench/spin_rounds.sh OUT ROUNDS NAME:"OVERRIDES" ...
#   SWEEP_S=240 bash bench/spin_rounds.sh /tmp/s64 3 bound:"agent.algo=ppo agent.runtime=graphed \
#       agent.overlap=true mode=async mode.groups=2 env.num_envs=64 schedule.reps=4 \
#       schedule.bench_steps=1000 schedule.warmup=64 schedule.interleave=env_only"
set -u
out=$1 rounds=$2
shift 2
for r in $(seq 0 $(( rounds - 1 ))); do
  for cond in none spin; do
    flag=""; [ $cond = spin ] && flag=--spin
    for spec in "$@"; do
      name=${spec%%:*} overrides=${spec#*:}
      # shellcheck disable=SC2086  # the overrides are words
      timeout "${SWEEP_S:-200}" python bench/idle_hold.py $flag -- python run.py -m $overrides round=$r \
        stall_timeout_s=45 hydra.sweep.dir=$out/$cond/r$r/$name 2>&1 \
        | grep -E "env_steps/s ±|FAILED|failed|rror|progress" | cut -c1-200
    done
    echo "round $r $cond done $(date +%T)"
  done
done
