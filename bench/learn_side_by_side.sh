#!/bin/bash
# Learning runs side by side on one GPU, each pinned to its own CORES_EACH cores (taskset) with as
# many emulator threads, for comparing how settings learn at equal env steps: the runs share the
# GPU and slow each other, so their wall times and throughputs are not figures (the collector's
# equal-env-steps table and curves against env steps are). Each run stops at its preset's target
# or after SECONDS. A NAME:OVERRIDES pair per run; the result folders are OUT/NAME.
#   bash bench/learn_side_by_side.sh OUT CORES_EACH SECONDS NAME:"OVERRIDES" ...
#   bash bench/learn_side_by_side.sh /tmp/tune 2 500 base7:"+preset=learn_fast seed=7" \
#        lr7:"+preset=learn_fast seed=7 agent.learning_rate=5e-4"
set -u
out=$1 each=$2 secs=$3
shift 3
cores=$(nproc)
if (( $# * each > cores )); then
  echo "$# runs x $each cores is more than the $cores here" >&2
  exit 2
fi
mkdir -p "$out"
i=0
for spec in "$@"; do
  name=${spec%%:*} overrides=${spec#*:}
  first=$(( i * each ))
  # word splitting of $overrides is wanted: one override per word
  taskset -c $first-$(( first + each - 1 )) timeout $(( secs + 90 )) python run.py $overrides \
    env.num_threads=$each schedule.max_seconds=$secs hydra.run.dir="$out/$name" > "$out/$name.log" 2>&1 &
  i=$(( i + 1 ))
done
wait
for spec in "$@"; do
  name=${spec%%:*}
  echo "$name: $(grep -E 'env_steps/s|target|FAILED|rror' "$out/$name.log" | tail -2 | cut -c1-200 | tr '\n' ' ')"
done
