#!/usr/bin/env bash
# 2026-12-07, second start, one call: BUDGET=560 timeout 590 bash commands.sh
# Device run: set-up, the mixed-batch experiment (main job's cells, setup_batch 4 vs 1, ABBA), quick rounds.
T0=$(date +%s)
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - T0) )); }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1; unset PYTHONDONTWRITEBYTECODE
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)|NUMA'; python3 -c 'import torch,sys;print(torch.__version__, sys.version)'; git log --oneline -1; } > $OUT/machine.txt 2>&1
echo "setup done at $(( $(date +%s) - T0 )) s"
QK="schedule.reps=5 schedule.precision=0.1 schedule.max_reps=20 schedule.max_measure_s=30 schedule.bench_steps=100 schedule.warmup=16 agent.num_steps=64"
M=/tmp/mixed
ROUNDS=${MIXED_ROUNDS:-4}
for ((r = 0; r < ROUNDS; r++)); do
  if ((r % 2 == 0)); then order="4 1"; else order="1 4"; fi
  for b in $order; do
    [ "$(left)" -gt 120 ] || { echo "skip mixed r$r b$b: $(left) s left"; continue; }
    d=$M/b${b}_r$r; t0=$(date +%s.%N)
    timeout 150 python3 run.py -m round=0,1 env.num_envs=1,8 mode=step,sendrecv $QK setup_batch=$b hydra.sweep.dir=$d > $M.b${b}_r$r.log 2>&1
    rc=$?; t1=$(date +%s.%N)
    echo "b$b r$r rc=$rc wall=$(awk "BEGIN{print $t1-$t0}")" | tee -a $M.walls
  done
done
mkdir -p $M; mv $M.*.log $M.walls $M/ 2>/dev/null
tar czf $OUT/mixed.tar.gz -C /tmp mixed
echo "mixed done at $(( $(date +%s) - T0 )) s"
if [ "$(left)" -gt 90 ]; then
  cp .ref/bench_ppo_async.py /tmp/ref.py
  VARIANTS="script_step quick_step_batch" timeout $(( $(left) - 15 )) bash bench/quick_rounds.sh /tmp/qr /tmp/ref.py 3
  tar czf $OUT/quick_rounds.tar.gz -C /tmp qr
fi
echo "all done at $(( $(date +%s) - T0 )) s"
