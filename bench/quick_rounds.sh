#!/usr/bin/env bash
# The main job against the reference's --quick, in one machine start: each round runs
# the script's --quick step half (bench/reference_step_grid.py --quick), the main job's
# step half (+preset=quick mode=step), the whole main job (+preset=quick) and the
# reference's own schedule (+preset=quick_reference), the order reversed every other
# round. walls.txt: variant, round, exit status, seconds; a .tar.gz per sweep (its
# folder names hold '=') and a .log per run. VARIANTS picks and orders them (quick_paired:
# the main job with step and sendrecv in turns over one build per num_envs; quick_100: its
# step half with schedule.bench_steps=100, the preset's value from 2026-12-06 until its reps
# became one whole 64-step rollout each; quick_step_batch and quick_batch: the step half and the whole main job with their jobs
# set up side by side, setup_batch=2 and 4).
#
#   bench/quick_rounds.sh OUT REFERENCE_SCRIPT [ROUNDS]
#   VARIANTS="script_step quick_paired quick" bench/quick_rounds.sh OUT REFERENCE_SCRIPT 3
set -u
out=${1:?usage: bench/quick_rounds.sh OUT REFERENCE_SCRIPT [ROUNDS]}
ref=${2:?usage: bench/quick_rounds.sh OUT REFERENCE_SCRIPT [ROUNDS]}
rounds=${3:-3}
mkdir -p "$out"
declare -A cmd=(
    [script_step]="python3 bench/reference_step_grid.py $ref --quick"
    [quick_step]="python3 run.py -m +preset=quick mode=step"
    [quick]="python3 run.py -m +preset=quick"
    [quick_reference]="python3 run.py -m +preset=quick_reference"
    [quick_paired]="python3 run.py -m +preset=quick mode=step schedule.interleave=sendrecv"
    [quick_100]="python3 run.py -m +preset=quick mode=step schedule.bench_steps=100"
    [quick_step_batch]="python3 run.py -m +preset=quick mode=step setup_batch=2"
    [quick_batch]="python3 run.py -m +preset=quick setup_batch=4"
)
read -r -a order <<< "${VARIANTS:-script_step quick_step quick quick_reference}"
for r in $(seq 1 "$rounds"); do
    run=("${order[@]}")
    if (( r % 2 == 0 )); then run=(); for ((i = ${#order[@]} - 1; i >= 0; i--)); do run+=("${order[i]}"); done; fi
    for v in "${run[@]}"; do
        dir="$out/$v-$r"
        sweep=""; [[ $v == script_step ]] || sweep="hydra.sweep.dir=$dir"
        t0=$(date +%s%N)
        # shellcheck disable=SC2086
        timeout 300 ${cmd[$v]} $sweep > "$dir.log" 2>&1
        rc=$?
        t1=$(date +%s%N)
        echo "$v $r $rc $(( (t1 - t0) / 1000000 ))e-3" >> "$out/walls.txt"
        if [[ -d $dir ]]; then tar czf "$dir.tar.gz" -C "$out" "$v-$r" && rm -rf "$dir"; fi
    done
done
cat "$out/walls.txt"
