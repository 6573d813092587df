#!/usr/bin/env bash
# 2026-12-07, third start, call 1: VARIANTS="script_step quick_step" BUDGET=115 timeout 135 bash commands_c1.sh
# Device run: set-up, quick rounds (script, default quick step half, setup_batch=2), scipy import cost, mixed-batch replicate.
T0=$(date +%s)
left() { echo $(( ${BUDGET:-380} - ($(date +%s) - T0) )); }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1; unset PYTHONDONTWRITEBYTECODE
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)|NUMA'; python3 -c 'import torch,sys;print(torch.__version__, sys.version)'; } > $OUT/machine.txt 2>&1
cp .ref/bench_ppo_async.py /tmp/ref.py
VARIANTS="${VARIANTS:-script_step quick_step quick_step_batch}" timeout $(( $(left) - 20 )) bash bench/quick_rounds.sh /tmp/qr /tmp/ref.py 3
tar czf $OUT/quick_rounds.tar.gz -C /tmp qr
echo "quick done at $(( $(date +%s) - T0 )) s"
# scipy.special against scipy.stats, fresh interpreters in turns (the fork server's preload imports the first since 81ac04f)
for i in 1 2 3 4 5; do for m in scipy.special scipy.stats; do
  python3 -c "import time,numpy;t=time.perf_counter();import $m;print('$m', round(time.perf_counter()-t,4))"; done; done > $OUT/scipy_import.txt 2>&1
cat $OUT/scipy_import.txt
QK="schedule.reps=5 schedule.precision=0.1 schedule.max_reps=20 schedule.max_measure_s=30 schedule.bench_steps=100 schedule.warmup=16 agent.num_steps=64"
M=/tmp/mixed
for ((r = 0; r < 4; r++)); do
  if ((r % 2 == 0)); then order="4 1"; else order="1 4"; fi
  for b in $order; do
    [ "$(left)" -gt 50 ] || { echo "skip mixed r$r b$b: $(left) s left"; continue; }
    d=$M/b${b}_r$r; t0=$(date +%s.%N)
    timeout 60 python3 run.py -m round=0,1 env.num_envs=1,8 mode=step,sendrecv $QK setup_batch=$b hydra.sweep.dir=$d > $M.b${b}_r$r.log 2>&1
    rc=$?; t1=$(date +%s.%N)
    echo "b$b r$r rc=$rc wall=$(awk "BEGIN{print $t1-$t0}")" | tee -a $M.walls
  done
done
mkdir -p $M; mv $M.*.log $M.walls $M/ 2>/dev/null
tar czf $OUT/mixed.tar.gz -C /tmp mixed
echo "all done at $(( $(date +%s) - T0 )) s"
