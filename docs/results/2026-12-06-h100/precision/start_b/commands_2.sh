python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 && unset PYTHONDONTWRITEBYTECODE && timeout 200 python3 -c "import torch._dynamo, torch._inductor.compile_fx, scipy.stats"; nvidia-smi -L
R=$PWD; rm -rf /tmp/cmpold && tar xzf .ref/cmp_old.tar.gz -C /tmp
(cd /tmp/cmpold && PYTHONPATH=/tmp/site:$PWD timeout 250 python3 bench/compare_reference.py $R/.ref/bench_ppo_async.py --counts 1 8 --reps 5 --bench-steps 500 --out /tmp/cref_old > /tmp/cref_old.log 2>&1; echo old rc=$?)
PYTHONPATH=/tmp/site:$PWD timeout 250 python3 bench/compare_reference.py .ref/bench_ppo_async.py --counts 1 8 --reps 5 --bench-steps 500 --out /tmp/cref_new > /tmp/cref_new.log 2>&1; echo new rc=$?
cp /tmp/cref_old.log /tmp/cref_new.log $OUT/; tar czf $OUT/cref_ab.tar.gz -C /tmp cref_old cref_new; tail -5 /tmp/cref_old.log /tmp/cref_new.log
