#!/bin/bash
# Issue 12 on the H200, from the checkout root with the device wheels installed:
#   bash docs/results/2026-11-30-h200/learn.sh tests /tmp/learn   # CUDA tests of graphed PPO
#   bash docs/results/2026-11-30-h200/learn.sh solo  /tmp/learn   # one learning run alone on the machine
#   bash docs/results/2026-11-30-h200/learn.sh seeds /tmp/learn [MODES] [ENV_STEPS] [MAX_SECONDS]
#       3 seeds x MODES ("step async") side by side: curves against env steps, not timings
set -u
phase=$1 out=$2
mkdir -p "$out"
if [ "$phase" = tests ]; then
  timeout "${3:-180}" python -m pytest -q -p no:cacheprovider tests/test_ppo.py tests/test_agent.py -k graphed 2>&1 \
    | tail -60 > "$out/cuda_tests_ppo.log"; tail -5 "$out/cuda_tests_ppo.log"
fi
if [ "$phase" = solo ]; then
  timeout 280 python run.py +preset=learn seed=1 schedule.total_env_steps=2500000 \
    hydra.run.dir="$out/solo/async_seed1" 2>&1 | tail -30
fi
if [ "$phase" = seeds ]; then
  # CleanRL's tuned envpool Pong settings exactly (16 envs, 8 minibatches); six jobs share 16 cores.
  for mode in ${3:-step async}; do
    for seed in 1 2 3; do
      # max_seconds ends a run cleanly with its curve; timeout is only the backstop
      timeout $(( ${5:-280} + 60 )) python run.py +preset=learn mode=$mode seed=$seed env.num_envs=16 \
        agent.num_minibatches=8 schedule.total_env_steps="${4:-700000}" schedule.max_seconds="${5:-280}" \
        hydra.run.dir="$out/seeds/${mode}_seed$seed" \
        > "$out/seeds_${mode}_${seed}.log" 2>&1 &
    done
  done
  wait
  for f in "$out"/seeds_*.log; do tail -n 2 "$f"; done
fi
