python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 && unset PYTHONDONTWRITEBYTECODE && timeout 200 python3 -c "import torch._dynamo, torch._inductor.compile_fx, scipy.stats, pandas, matplotlib.pyplot"; nvidia-smi -L; nproc
rm -rf /tmp/old && tar xzf .ref/old.tar.gz -C /tmp
t0=$(date +%s); timeout 60 python3 run.py -m +preset=quick mode=step hydra.sweep.dir=/tmp/warm > /tmp/warm.log 2>&1; echo "warm-up sweep rc=$? $(( $(date +%s) - t0 )) s"
timeout 200 bash bench/alternate_trees.sh /tmp/at 3 before=/tmp/old after=$PWD 'timeout 60 python3 run.py -m +preset=quick mode=step hydra.sweep.dir=$RUN_OUT/s; date +%s.%N > $RUN_OUT/ended'
tar czf $OUT/at.tar.gz -C /tmp at
VARIANTS="script_step quick_step quick_short" timeout 260 bash bench/quick_rounds.sh /tmp/qr .ref/bench_ppo_async.py 3; tar czf $OUT/qr.tar.gz -C /tmp qr
