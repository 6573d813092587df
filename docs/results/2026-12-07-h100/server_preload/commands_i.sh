#!/usr/bin/env bash
# The grid's step half at 1, 8, 64 envs, three ways in turns: the reference script's step half, the
# product as committed ("grid"), and the product whose fork server also holds what a compiled first
# step loads after inductor ("more": .trees/more, triton, the generated code's imports, cuDNN's
# sub-libraries). First call (after a probe that children forked after those loads still use CUDA):
#   R0=0 BUDGET=570 timeout 595 bash .ref/commands_i.sh
# later calls go on from round K:   R0=K BUDGET=570 timeout 595 bash .ref/commands_i.sh
T0=$(date +%s)
[ -d /tmp/site/ale_py ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1; unset PYTHONDONTWRITEBYTECODE
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)'; python3 -c 'import torch,sys;print(torch.__version__, sys.version)'; } > $OUT/machine.txt 2>&1
GRID='timeout 150 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=$RUN_OUT/sweep'
CMD="case \$TREE in script) timeout 150 python3 bench/reference_step_grid.py /tmp/ref.py --counts 1 8 64;; *) $GRID;; esac"
cp .ref/bench_ppo_async.py /tmp/ref.py; r=${R0:-0}
if [ "$r" = 0 ]; then
  timeout 60 python3 bench/fork_inductor_probe.py --nvml --more > $OUT/fork_probe_more.json 2>&1; echo "probe --more rc=$?"
  python3 -c "import json;d=json.loads(open('$OUT/fork_probe_more.json').read().splitlines()[-1]);print(d.get('child'), d.get('initialized_in_parent'), d.get('preloaded'))"
  (cd .trees/more && PYTHONPATH=$PWD:$PYTHONPATH timeout 90 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=/tmp/warm_more > /tmp/warm_more.log 2>&1; echo "warm more rc=$?"; grep -E "ok|failed|Error" /tmp/warm_more.log | tail -3)
  timeout 80 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=/tmp/warm > /dev/null 2>&1; echo "warm grid rc=$?"
  timeout 60 python3 bench/reference_step_grid.py /tmp/ref.py --quick > /dev/null 2>&1
fi
while [ $(( ${BUDGET:-570} - ($(date +%s) - T0) )) -gt 215 ]; do
  ROUND0=$r bash bench/alternate_trees.sh /tmp/gi 1 script=$PWD grid=$PWD more=$PWD/.trees/more "$CMD"; r=$((r + 1))
  tar czf $OUT/gi.tar.gz -C /tmp gi
done
echo "next round $r; all done at $(( $(date +%s) - T0 )) s"
