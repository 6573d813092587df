# 2026-12-07, call 2 (same machine start): does a parked job slow the one being timed? 1 env x 6 rounds and 64 envs x 4 rounds, setup_batch=2 against 1, alternating (pairs.py reads them); the whole main job with setup_batch=4 against without, 2 rounds
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 && unset PYTHONDONTWRITEBYTECODE && timeout 200 python3 -c "import torch._dynamo, torch._inductor.compile_fx, scipy.stats, pandas, matplotlib.pyplot"; nvidia-smi -L
t0=$(date +%s); timeout 60 python3 run.py -m +preset=quick mode=step hydra.sweep.dir=/tmp/warm > /tmp/warm.log 2>&1; echo "warm-up sweep rc=$? $(( $(date +%s) - t0 )) s"
timeout 130 bash bench/alternate_trees.sh /tmp/sib1 2 batch2=$PWD batch1=$PWD \
  'timeout 60 python3 run.py -m +preset=quick mode=step env.num_envs=1 round=0,1,2,3,4,5 setup_batch=${TREE#batch} hydra.sweep.dir=$RUN_OUT/s'
tar czf $OUT/sib1.tar.gz -C /tmp sib1
timeout 200 bash bench/alternate_trees.sh /tmp/sib64 2 batch2=$PWD batch1=$PWD \
  'timeout 90 python3 run.py -m +preset=quick mode=step env.num_envs=64 round=0,1,2,3 setup_batch=${TREE#batch} hydra.sweep.dir=$RUN_OUT/s'
tar czf $OUT/sib64.tar.gz -C /tmp sib64
VARIANTS="quick quick_batch" timeout 100 bash bench/quick_rounds.sh /tmp/qw .ref/bench_ppo_async.py 2; tar czf $OUT/qw.tar.gz -C /tmp qw
