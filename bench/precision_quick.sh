#!/usr/bin/env bash
# `+preset=quick` with its fixed 2 repetitions against the same sweep with a precision target
# (schedule.precision, a pilot of 3 or 5 repetitions), in one machine start, each variant's order
# reversed every other round: the wall time of each sweep (walls.txt: variant, round, exit status,
# seconds) and its records (a .tar.gz per sweep: folder names hold '=').
#
#   bench/precision_quick.sh OUT [ROUNDS] [TARGET]
set -u
out=${1:?usage: bench/precision_quick.sh OUT [ROUNDS] [TARGET]}
rounds=${2:-2}
target=${3:-0.1}
mkdir -p "$out"
declare -A extra=(
    [fixed]=""
    [pilot3]="schedule.reps=3 schedule.precision=$target"
    [pilot5]="schedule.reps=5 schedule.precision=$target"
)
order=(fixed pilot3 pilot5)
for r in $(seq 1 "$rounds"); do
    if (( r % 2 == 0 )); then run=(pilot5 pilot3 fixed); else run=("${order[@]}"); fi
    for v in "${run[@]}"; do
        dir="$out/$v-$r"
        t0=$(date +%s%N)
        # shellcheck disable=SC2086
        timeout 300 python3 run.py -m +preset=quick ${extra[$v]} "hydra.sweep.dir=$dir" > "$dir.log" 2>&1
        rc=$?
        t1=$(date +%s%N)
        echo "$v $r $rc $(( (t1 - t0) / 1000000 ))e-3" >> "$out/walls.txt"
        tar czf "$dir.tar.gz" -C "$out" "$v-$r" && rm -rf "$dir"
    done
done
cat "$out/walls.txt"
