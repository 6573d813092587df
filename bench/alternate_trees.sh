#!/usr/bin/env bash
# One command run in two checkouts of the project, alternately, so the machine's drift
# falls on both alike (what "paired" means for a before/after comparison of two trees).
#
#   bench/alternate_trees.sh OUT ROUNDS NAME_A=DIR_A NAME_B=DIR_B 'COMMAND'
#
# Round r runs A then B when r is even and B then A when it is odd (A B, B A, A B, ...).
# COMMAND runs under bash in the tree's folder, with PYTHONPATH led by that folder, and
# sees ROUND (0 .. ROUNDS-1), TREE (its NAME) and RUN_OUT (OUT/NAME_r<round>, made for it).
# Each run's output goes to OUT/NAME_r<round>.log, and a line to OUT/runs.tsv: tree,
# round, exit status, the epoch second it started and its wall seconds, so a figure
# "from the process's start" can be read against the records' own clocks.
#   bench/alternate_trees.sh /tmp/lf 5 old=/tmp/old new=. \
#       'timeout 150 python3 run.py +preset=learn_fast seed=$((ROUND + 2)) hydra.run.dir=$RUN_OUT'
set -uo pipefail
out=$1 rounds=$2 a=$3 b=$4 command=$5
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
for ((r = 0; r < rounds; r++)); do
    if ((r % 2 == 0)); then run_one "$a" $r; run_one "$b" $r; else run_one "$b" $r; run_one "$a" $r; fi
done
