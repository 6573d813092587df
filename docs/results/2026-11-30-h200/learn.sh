#!/bin/bash
# Issue 12 on the H200, from the checkout root with the device wheels installed:
#   bash docs/results/2026-11-30-h200/learn.sh solo  /tmp/learn   # CUDA tests of graphed PPO, then one learning run alone
#   bash docs/results/2026-11-30-h200/learn.sh seeds /tmp/learn   # 3 seeds x step, async side by side (curves, not timings)
# The job folders' names hold '=' and ',', which the device's transfer refuses: tar the out dir.
set -u
phase=$1 out=$2
mkdir -p "$out"
if [ "$phase" = solo ]; then
  timeout 180 python -m pytest -q -p no:cacheprovider tests/test_ppo.py tests/test_agent.py -k graphed 2>&1 \
    | tail -15 | tee "$out/cuda_tests_ppo.log"
  timeout 330 python run.py +preset=learn seed=1 schedule.total_env_steps=3000000 \
    hydra.run.dir="$out/solo/mode=async,seed=1" 2>&1 | tail -40
fi
if [ "$phase" = seeds ]; then
  # CleanRL's tuned envpool Pong settings exactly (16 envs, 8 minibatches); six jobs share 16 cores.
  for mode in step async; do
    for seed in 1 2 3; do
      timeout "${3:-290}" python run.py +preset=learn mode=$mode seed=$seed env.num_envs=16 agent.num_minibatches=8 \
        schedule.total_env_steps=800000 hydra.run.dir="$out/seeds/mode=$mode,seed=$seed" \
        > "$out/seeds_${mode}_${seed}.log" 2>&1 &
    done
  done
  wait
  tail -3 "$out"/seeds_*.log
fi
