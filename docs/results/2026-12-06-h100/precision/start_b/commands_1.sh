python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 && unset PYTHONDONTWRITEBYTECODE && timeout 200 python3 -c "import torch._dynamo, torch._inductor.compile_fx, scipy.stats, pandas, matplotlib.pyplot"; nvidia-smi -L
timeout 300 bash bench/alternate_trees.sh /tmp/grid 2 script=$PWD sweep=$PWD \
  'if [ $TREE = script ]; then timeout 120 python3 bench/reference_step_grid.py .ref/bench_ppo_async.py --counts 1 8 64;
   else timeout 120 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=$RUN_OUT/sweep; fi'
tar czf $OUT/grid.tar.gz -C /tmp grid
VARIANTS="script_step quick_step" timeout 200 bash bench/quick_rounds.sh /tmp/qr .ref/bench_ppo_async.py 3; tar czf $OUT/qr.tar.gz -C /tmp qr
