#!/usr/bin/env bash
# 2026-12-07, start F (an H200; tree e978156): the grid's step half at 1, 8, 64 envs, three ways in turns (bench/alternate_trees.sh:
# script, batch, own; then own, batch, script; ...): the reference script's step half
# (bench/reference_step_grid.py), `+preset=grid` with its jobs set up side by side (setup_batch=0) and
# one after another (setup_batch=1). Rounds go on while the call's budget lasts; a later call on the
# same warm machine goes on from round R0. On an H200, the main job against the script's --quick first.
#   call 1: BUDGET=560 timeout 590 bash commands_f.sh ; later calls: R0=<next round> BUDGET=560 timeout 590 bash commands_f.sh
T0=$(date +%s)
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - T0) )); }
[ -d /tmp/site/ale_py ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1; unset PYTHONDONTWRITEBYTECODE
if [ -z "$R0" ]; then
  { nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)|NUMA'; python3 -c 'import torch,sys;print(torch.__version__, sys.version)'; } > /tmp/machine.txt 2>&1
  cp .ref/bench_ppo_async.py /tmp/ref.py
  timeout 100 python3 -c "import torch._dynamo, torch._inductor.compile_fx, scipy.special, pandas, matplotlib.pyplot"
  if grep -q H200 /tmp/machine.txt; then
    timeout 60 python3 run.py -m +preset=quick mode=step hydra.sweep.dir=/tmp/warmq > /tmp/warmq.log 2>&1
    VARIANTS="script_step quick_step" timeout 130 bash bench/quick_rounds.sh /tmp/qr /tmp/ref.py 3 2>&1 | tail -8
    mkdir -p /tmp/quick
    for i in 1 2 3; do
      t0=$(date +%s.%N); timeout 40 python3 run.py -m +preset=quick hydra.sweep.dir=/tmp/quick/q$i > /tmp/quick/q$i.log 2>&1; rc=$?
      echo "quick $i rc=$rc $(awk "BEGIN{print $(date +%s.%N)-$t0}")" | tee -a /tmp/quick/walls.txt
    done
    tar czf $OUT/quick_h200.tar.gz -C /tmp qr quick; echo "quick done, left $(left)"
  fi
  t0=$(date +%s); timeout 80 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step setup_batch=0 hydra.sweep.dir=/tmp/warm > /tmp/warm.log 2>&1; echo "warm-up sweep rc=$? $(( $(date +%s) - t0 )) s"
  t0=$(date +%s); timeout 60 python3 bench/reference_step_grid.py /tmp/ref.py --quick > /tmp/warm_script.log 2>&1; echo "warm-up script --quick rc=$? $(( $(date +%s) - t0 )) s; left $(left)"
fi
cp /tmp/machine.txt $OUT/; cat /tmp/machine.txt
GRID='timeout 100 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=$RUN_OUT/sweep'
CMD="case \$TREE in script) timeout 100 python3 bench/reference_step_grid.py /tmp/ref.py --counts 1 8 64;; batch) $GRID setup_batch=0;; own) $GRID setup_batch=1;; esac"
r=${R0:-0}
while [ "$(left)" -gt 130 ]; do
  ROUND0=$r bash bench/alternate_trees.sh /tmp/gb 1 script=$PWD batch=$PWD own=$PWD "$CMD"; r=$((r + 1))
done
echo "next round $r; left $(left)"
tar czf $OUT/gb.tar.gz -C /tmp gb; echo "all done at $(( $(date +%s) - T0 )) s"

# As run: call 1 `BUDGET=560 timeout 590 bash commands_f.sh` (an H200: the quick rounds and the main job first, quick_rounds_f.tar.gz,
# main_job_f.tar.gz, their folders renamed; round 0); call 2 `R0=1 BUDGET=540 timeout 580 bash commands_f.sh` (rounds 1, 2); call 3, after
# `uptime; ps aux --sort=-%cpu | head -12; nvidia-smi --query-gpu=temperature.gpu,clocks.sm,utilization.gpu,memory.used --format=csv`,
# `R0=3 BUDGET=470 timeout 500 bash commands_f.sh` (rounds 3, 4). grid_f.tar.gz is call 3's gb.tar.gz, the folder renamed.
