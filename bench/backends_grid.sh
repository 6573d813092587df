#!/bin/bash
# Every loop on every backend, one or more rounds at the given env counts, in one sweep folder:
# env_only (1 and 2 batches), step, sendrecv and async (2 batches) on ale, envpool and
# gymnasium, graphed agent, phase clocks on. Hydra varies the last override fastest, so
# the three backends of one loop run back to back (the pairs the collector compares);
# combinations a backend cannot run (gymnasium has no batches) are recorded as skipped.
# RUNTIME=compiled,graphed sweeps both runtimes, each loop's backends still back to back.
#
#   bash bench/backends_grid.sh OUT ROUNDS SIZES [SECONDS]
#   bash bench/backends_grid.sh /tmp/g 0,1 8,64 560      # both rounds at 8 and 64 envs
#   bash bench/backends_grid.sh /tmp/g 0 256 560         # one round at 256 (each ale job builds 256 emulators)
#   RUNTIME=compiled bash bench/backends_grid.sh /tmp/c 0 8,64 560   # the default agent instead
#
# The sweep goes to OUT/grid and, packed, to $OUT/grid_<RUNTIME>_r<ROUNDS>_n<SIZES>.tgz when $OUT is
# set (the GPU machine's transfer refuses Hydra's job folder names, which hold '=' and ',').
# SECONDS (default 560) bounds the whole sweep; what finished is packed either way.
# RUNTIME and STEPS in the environment replace the graphed agent and the loop steps (STEPS: a CPU try).
set -u
out=$1 rounds=$2 sizes=$3 limit=${4:-560} runtime=${RUNTIME:-graphed}
steps=400; [ "$sizes" = 256 ] && steps=300; steps=${STEPS:-$steps}
timeout "$limit" python run.py -m hydra.sweep.dir="$out/grid" round="$rounds" env.num_envs="$sizes" \
  mode=env_only,step,sendrecv,async mode.groups=1,2 agent.runtime="$runtime" env.backend=ale,envpool,gymnasium \
  schedule.reps=1 schedule.bench_steps=$steps schedule.warmup=32 \
  schedule.profile=true collect=false 2>&1 | grep -E "env_steps/s|FAILED|Error" | tail -80
if [ -n "${OUT:-}" ]; then
  tar czf "$OUT/grid_${runtime//,/-}_r${rounds//,/-}_n${sizes//,/-}.tgz" -C "$out" grid
fi
