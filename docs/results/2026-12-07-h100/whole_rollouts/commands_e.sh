#!/usr/bin/env bash
# 2026-12-07, start E, call 5 (asked for an H200, given an H100; tree a597cbe): set-up; the quick step half (script --quick, +preset=quick mode=step), 3 rounds; the whole main job, 3 runs.
T0=$(date +%s)
left() { echo $(( ${BUDGET:-300} - ($(date +%s) - T0) )); }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1; unset PYTHONDONTWRITEBYTECODE
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)|NUMA'; python3 -c 'import torch,sys;print(torch.__version__, sys.version)'; } > $OUT/machine.txt 2>&1
cat $OUT/machine.txt; cp .ref/bench_ppo_async.py /tmp/ref.py; mkdir -p /tmp/quick
timeout 100 python3 -c "import torch._dynamo, torch._inductor.compile_fx, scipy.special, pandas, matplotlib.pyplot"
t0=$(date +%s); timeout 60 python3 run.py -m +preset=quick mode=step hydra.sweep.dir=/tmp/warm > $OUT/warm.log 2>&1; echo "warm-up sweep rc=$? $(( $(date +%s) - t0 )) s; left $(left)"
VARIANTS="script_step quick_step" timeout $(( $(left) - 45 > 120 ? 120 : $(left) - 45 )) bash bench/quick_rounds.sh /tmp/qr /tmp/ref.py 3 2>&1 | tail -8
tar czf $OUT/quick_rounds.tar.gz -C /tmp qr; echo "left $(left)"
for i in 1 2 3; do
  [ "$(left)" -gt 20 ] || break
  t0=$(date +%s.%N); timeout 30 python3 run.py -m +preset=quick hydra.sweep.dir=/tmp/quick/q$i > /tmp/quick/q$i.log 2>&1; rc=$?
  echo "quick $i rc=$rc $(awk "BEGIN{print $(date +%s.%N)-$t0}")" | tee -a /tmp/quick/walls.txt
done
tar czf $OUT/quick.tar.gz -C /tmp quick; echo "all done at $(( $(date +%s) - T0 )) s"

# Call 5 ran as `BUDGET=170 timeout 190 bash commands_e.sh` (quick_rounds_e.tar.gz, main_job_e.tar.gz); call 6, on the
# same warm machine (grid_e.tar.gz):
#   timeout 300 bash bench/alternate_trees.sh /tmp/grid3 2 script=$PWD sweep=$PWD 'if [ $TREE = script ]; then timeout 100 python3 bench/reference_step_grid.py /tmp/ref.py --counts 1 8 64; else timeout 100 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=$RUN_OUT/sweep; fi'
