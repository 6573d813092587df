#!/usr/bin/env bash
# The grid's step half at 1, 8, 64 envs against the reference script's, in turns (script, grid, grid,
# script, ...), after the fork server's hashes (fork probe, compile_start preload vs preload_keys).
#   R0=0 BUDGET=570 timeout 595 bash docs/results/2026-12-07-h100/caps_live/commands_j.sh      # probe, compile_start, warm-ups, rounds
#   R0=K BUDGET=575 timeout 595 bash docs/results/2026-12-07-h100/caps_live/commands_j.sh      # more rounds from K
T0=$(date +%s)
[ -d /tmp/site/ale_py ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1; unset PYTHONDONTWRITEBYTECODE
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)'; python3 -c 'import torch,sys;print(torch.__version__, sys.version)'; } > $OUT/machine.txt 2>&1
GRID='timeout 150 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=$RUN_OUT/sweep'
CMD="case \$TREE in script) timeout 150 python3 bench/reference_step_grid.py /tmp/ref.py --counts 1 8 64;; *) $GRID;; esac"
cp .ref/bench_ppo_async.py /tmp/ref.py; r=${R0:-0}
if [ "$r" = 0 ]; then
  timeout 60 python3 bench/fork_inductor_probe.py --nvml --keys > $OUT/fork_probe_keys.json 2>&1; echo "probe --keys rc=$?"
  python3 -c "import json;d=json.loads(open('$OUT/fork_probe_keys.json').read().splitlines()[-1]);print(d.get('child'), d.get('initialized_in_parent'), d.get('hash_compile_keys_s'))"
  timeout 100 python3 bench/compile_start.py --rounds 1 --variants preload_keys > /dev/null 2>&1   # fills inductor's cache
  timeout 150 python3 bench/compile_start.py --rounds 4 --variants preload,preload_keys > $OUT/compile_start.txt 2>&1; echo "compile_start rc=$?"; tail -4 $OUT/compile_start.txt
  timeout 80 python3 run.py -m +preset=grid env.num_envs=1,8,64 mode=step hydra.sweep.dir=/tmp/warm > /dev/null 2>&1; echo "warm grid rc=$?"
  timeout 60 python3 bench/reference_step_grid.py /tmp/ref.py --quick > /dev/null 2>&1
fi
while [ $(( ${BUDGET:-570} - ($(date +%s) - T0) )) -gt 170 ]; do
  ROUND0=$r bash bench/alternate_trees.sh /tmp/gj 1 script=$PWD grid=$PWD "$CMD"; r=$((r + 1))
  tar czf $OUT/gj.tar.gz -C /tmp gj
done
echo "next round $r; all done at $(( $(date +%s) - T0 )) s"
