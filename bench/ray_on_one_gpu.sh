#!/usr/bin/env bash
# hydra/launcher=ray on one GPU beside the node launcher, the same jobs:
#   bash bench/ray_on_one_gpu.sh OUT node   # +preset=quick under the node launcher (one slot: the GPU)
#   bash bench/ray_on_one_gpu.sh OUT ray    # +preset=quick under Ray, two jobs at once on the GPU (half each,
#                                           # 8 of the 16 CPUs each), then three learn_fast seeds one after another
#   bash bench/ray_on_one_gpu.sh OUT pair   # +preset=quick under Ray one job at a time (the GPU and 16 CPUs
#                                           # each, as the node launcher's one slot), then under the node launcher
# Each sweep's folder is OUT/<name>; OUT/walls.txt gets each command's exit status and wall seconds.
set -u
out=${1:?an out dir}; which=${2:?node or ray}
mkdir -p "$out"
run() {
    local name=$1; shift
    local t0; t0=$(date +%s.%N)
    timeout 420 python3 run.py -m hydra.sweep.dir="$out/$name" "$@" > "$out/$name.log" 2>&1
    local rc=$?
    echo "$name rc=$rc wall_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >> "$out/walls.txt"
}
if [ "$which" = node ]; then
    run node_quick hydra/launcher=node +preset=quick
elif [ "$which" = pair ]; then
    run ray_quick_alone hydra/launcher=ray +preset=quick
    run node_quick_2 hydra/launcher=node +preset=quick
else
    run ray_quick hydra/launcher=ray hydra.launcher.gpus_per_job=0.5 hydra.launcher.cpus_per_job=8 +preset=quick
    run ray_learn_fast hydra/launcher=ray +preset=learn_fast seed=2,3,4
fi
