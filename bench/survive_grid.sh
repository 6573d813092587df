#!/bin/bash
# On the GPU machine: learning runs side by side with their emulator threads oversubscribing
# the cores (ale-py 0.12.1's async batches then repeat an env now and then), and one more with that
# fault injected, all of +preset=learn cut to MAX_SECONDS; each record's faults say what it survived.
#   bash bench/survive_grid.sh OUT [MAX_SECONDS] [JOBS]
set -u
out=$1 secs=${2:-150} jobs=${3:-3}
mkdir -p "$out"
for seed in $(seq 1 "$jobs"); do
  timeout $(( secs + 90 )) python run.py +preset=learn seed=$seed env.num_threads=16 schedule.max_seconds=$secs \
    hydra.run.dir="$out/oversubscribed_seed$seed" > "$out/oversubscribed_seed$seed.log" 2>&1 &
done
PYTHONPATH="$PWD/tests/fault_injection:${PYTHONPATH:-}" PPO_BENCH_FAULT="ale_py.vector_env:AtariVectorEnv.recv:20000:repeat-env" \
  timeout $(( secs + 90 )) python run.py +preset=learn seed=9 env.num_threads=16 schedule.max_seconds=$secs \
  hydra.run.dir="$out/injected_seed9" > "$out/injected_seed9.log" 2>&1 &
wait
for f in "$out"/*/result.json; do
  python -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[1], r['status'], r['error'], [(f['error'][:60], f.get('env_steps')) for f in r.get('faults') or []])" "$f"
done
