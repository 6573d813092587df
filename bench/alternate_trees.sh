#!/usr/bin/env bash
# One command run in two checkouts of the project (or more), alternately, so the machine's drift
# falls on both alike (what "paired" means for a before/after comparison of two trees).
#
#   bench/alternate_trees.sh OUT ROUNDS NAME_A=DIR_A NAME_B=DIR_B [NAME_C=DIR_C ...] 'COMMAND'
#
# Round r runs the trees in the order named when r is even and in the reverse order when it
# is odd (A B, B A, A B, ...; with three, A B C, C B A, ...), so each pair's order alternates.
# COMMAND runs under bash in the tree's folder, with PYTHONPATH led by that folder, and
# sees ROUND (from ROUND0, by default 0, to ROUND0 + ROUNDS - 1), TREE (its NAME) and
# RUN_OUT (OUT/NAME_r<round>, made for it).
# ROUND0=K in the environment numbers the rounds from K (its parity still sets the order), so a
# later call can go on where an earlier one stopped, in the same OUT.
# Each run's output goes to OUT/NAME_r<round>.log, and a line to OUT/runs.tsv: tree,
# round, exit status, the epoch second it started and its wall seconds, so a figure
# "from the process's start" can be read against the records' own clocks.
#   bench/alternate_trees.sh /tmp/lf 5 old=/tmp/old new=. \
#       'timeout 150 python3 run.py +preset=learn_fast seed=$((ROUND + 2)) hydra.run.dir=$RUN_OUT'
set -uo pipefail
out=$1 rounds=$2 trees=("${@:3:$#-3}") command=${!#}
(( ${#trees[@]} >= 2 )) || { echo "alternate_trees.sh: name two trees or more (NAME=DIR)" >&2; exit 2; }
mkdir -p "$out"
[ -f "$out/runs.tsv" ] || printf 'tree\tround\trc\tstarted_epoch_s\twall_s\n' > "$out/runs.tsv"
run_one() {  # NAME=DIR ROUND
    local name=${1%%=*} dir=${1#*=} round=$2 t0 t1 rc
    local run_out="$out/${name}_r${round}"
    mkdir -p "$run_out"
    t0=$(date +%s.%N)
    (cd "$dir" && ROUND=$round TREE=$name RUN_OUT=$(realpath "$run_out") PYTHONPATH="$PWD:${PYTHONPATH:-}" \
        bash -c "$command") > "$out/${name}_r${round}.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\t%.2f\n' "$name" "$round" "$rc" "$t0" "$(awk "BEGIN{print $t1 - $t0}")" | tee -a "$out/runs.tsv"
}
for ((r = ${ROUND0:-0}; r < ${ROUND0:-0} + rounds; r++)); do
    order=("${trees[@]}")
    ((r % 2 == 0)) || for ((i = ${#trees[@]} - 1, j = 0; i >= 0; i--, j++)); do order[j]=${trees[i]}; done
    for tree in "${order[@]}"; do run_one "$tree" $r; done
done
