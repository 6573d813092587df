#!/usr/bin/env bash
# 2026-12-07, tree ada2b82 (asked for an H200; the machine lent was an H100).
# The grid's step half at 1, 8, 64 envs, three ways in turns: the reference script's step half, +preset=grid (pilot of 5) and +preset=grid schedule.reps=10 (pilot of 10), jobs one after another; rounds while the budget lasts.
# Order: script, pilot5, pilot10, then the reverse; a round starts only with 240 s of the budget left. A later call on the same warm machine goes on from round R0.
#   call 1: BUDGET=560 timeout 590 bash commands_g.sh ; later calls: R0=<next round> BUDGET=560 timeout 590 bash commands_g.sh
T0=$(date +%s)
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - T0) )); }
[ -d /tmp/site/ale_py ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1; unset PYTHONDONTWRITEBYTECODE
if [ -z "$R0" ]; then
  { nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)|NUMA'; python3 -c 'import torch,sys;print(torch.__version__, sys.version)'; } > /tmp/machine.txt 2>&1
  cp .ref/bench_ppo_async.py /tmp/ref.py
  timeout 100 python3 -c "import torch._dynamo, torch._inductor.compile_fx, scipy.special, pandas, matplotlib.pyplot"
  t0=$(date +%s); timeout 80 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=/tmp/warm > /tmp/warm.log 2>&1; echo "warm-up sweep rc=$? $(( $(date +%s) - t0 )) s"
  t0=$(date +%s); timeout 60 python3 bench/reference_step_grid.py /tmp/ref.py --quick > /tmp/warm_script.log 2>&1; echo "warm-up script --quick rc=$? $(( $(date +%s) - t0 )) s; left $(left)"
fi
cp /tmp/machine.txt $OUT/; cat /tmp/machine.txt
GRID='timeout 150 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=$RUN_OUT/sweep'
CMD="case \$TREE in script) timeout 150 python3 bench/reference_step_grid.py /tmp/ref.py --counts 1 8 64;; pilot5) $GRID;; pilot10) $GRID schedule.reps=10;; esac"
r=${R0:-0}
while [ "$(left)" -gt 240 ]; do
  ROUND0=$r bash bench/alternate_trees.sh /tmp/gb 1 script=$PWD pilot5=$PWD pilot10=$PWD "$CMD"; r=$((r + 1))
done
echo "next round $r; left $(left)"
tar czf $OUT/gb.tar.gz -C /tmp gb; echo "all done at $(( $(date +%s) - T0 )) s"
