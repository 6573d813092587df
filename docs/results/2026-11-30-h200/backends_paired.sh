#!/bin/bash
# The three backends in paired rounds, cut to the device budget left: each backend's best loop, paired rounds.
# ale and envpool: async in 2 batches; gymnasium: step (it has no batches).
# Round outermost, 256 envs before 64, the backends of one size back to back.
# Round 1 pairs ale with envpool first (the close call), gymnasium after if time is left;
# phase clocks in round 0 only. Usage: bash backends_paired.sh SWEEP_ROOT SECONDS
D=$1/backends_paired_best
S="agent.runtime=graphed schedule.reps=1 schedule.warmup=32 collect=false"
run() {  # round num_envs mode groups backends profile
  B=400; [ "$2" = 256 ] && B=300
  python run.py -m hydra.sweep.dir=$D round=$1 env.num_envs=$2 schedule.bench_steps=$B \
    mode=$3 mode.groups=$4 env.backend=$5 schedule.profile=$6 $S
}
export -f run; export D S
timeout "$2" bash -c '
run 0 256 async 2 ale,envpool true; run 0 256 step 1 gymnasium true
run 0 64 async 2 ale,envpool true;  run 0 64 step 1 gymnasium true
run 1 256 async 2 ale,envpool false; run 1 64 async 2 ale,envpool false
run 1 256 step 1 gymnasium false;    run 1 64 step 1 gymnasium false'
