# 2026-12-07, call 1 (H100, one machine start for calls 1-4; tree e2cb7e7): set-up; the quick step half (the script's --quick, +preset=quick mode=step, the same with setup_batch=2), 3 rounds; the grid's step half, script against a sweep with setup_batch=3, alternating; compare_reference at 1, 8, 64
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 && unset PYTHONDONTWRITEBYTECODE && timeout 200 python3 -c "import torch._dynamo, torch._inductor.compile_fx, scipy.stats, pandas, matplotlib.pyplot"; nvidia-smi -L; nproc; git log --oneline | head -1
T0=$(date +%s); left() { echo $(( 570 - ($(date +%s) - T0) )); }
t0=$(date +%s); timeout 60 python3 run.py -m +preset=quick mode=step hydra.sweep.dir=/tmp/warm > /tmp/warm.log 2>&1; echo "warm-up sweep rc=$? $(( $(date +%s) - t0 )) s"
VARIANTS="script_step quick_step quick_step_batch" timeout 200 bash bench/quick_rounds.sh /tmp/qr .ref/bench_ppo_async.py 3; tar czf $OUT/qr.tar.gz -C /tmp qr; echo "left $(left)"
timeout $(( $(left) - 20 > 200 ? 200 : $(left) - 20 )) bash bench/alternate_trees.sh /tmp/grid 2 script=$PWD sweep=$PWD \
  'if [ $TREE = script ]; then timeout 100 python3 bench/reference_step_grid.py .ref/bench_ppo_async.py --counts 1 8 64;
   else timeout 100 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step setup_batch=3 hydra.sweep.dir=$RUN_OUT/sweep; fi'
tar czf $OUT/grid.tar.gz -C /tmp grid; echo "left $(left)"
L=$(left); if [ $L -gt 60 ]; then t0=$(date +%s); timeout $(( L - 10 )) python3 bench/compare_reference.py .ref/bench_ppo_async.py --counts 1 8 64 --reps 5 --bench-steps 500 --out /tmp/cref > /tmp/cref.log 2>&1; echo "cref rc=$? $(( $(date +%s) - t0 )) s"; cp /tmp/cref.log $OUT/; tar czf $OUT/cref.tar.gz -C /tmp cref; grep -A8 -i "paired\|rounds" /tmp/cref.log | tail -14; fi
