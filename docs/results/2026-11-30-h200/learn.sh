#!/bin/bash
# PPO on Pong on the H200, from the checkout root with the device wheels installed:
#   bash docs/results/2026-11-30-h200/learn.sh tests /tmp/learn   # CUDA tests of graphed PPO
#   bash docs/results/2026-11-30-h200/learn.sh solo  /tmp/learn [MODE]   # one learning run alone on the machine
#   bash docs/results/2026-11-30-h200/learn.sh seeds /tmp/learn [MODES] [ENV_STEPS] [MAX_SECONDS] [NUM_ENVS]
#       3 seeds x MODES ("step async") side by side: curves against env steps, not timings
set -u
phase=$1 out=$2
mkdir -p "$out"
if [ "$phase" = tests ]; then
  timeout "${3:-180}" python -m pytest -q -p no:cacheprovider tests/test_ppo.py tests/test_agent.py -k graphed 2>&1 \
    | tail -60 > "$out/cuda_tests_ppo.log"; tail -5 "$out/cuda_tests_ppo.log"
fi
if [ "$phase" = solo ]; then
  # the preset as it is: 4M env steps, stops at 240 s; timeout only as a backstop
  timeout 300 python run.py +preset=learn seed=1 mode="${3:-async}" \
    hydra.run.dir="$out/solo/${3:-async}_seed1" 2>&1 | tail -30
fi
if [ "$phase" = seeds ]; then
  # the learn preset's settings (minibatches of 256 samples at any NUM_ENVS); six jobs share the CPUs
  envs=${6:-32} gpus=$(nvidia-smi -L 2>/dev/null | wc -l) job=0 modes=(${3:-step async})
  # the jobs' emulator threads together within the cores: with more threads than cores ale-py
  # 0.12.1's async batches were seen to repeat an env (results README, run 4); run 4 did not do this
  threads=$(( $(nproc) / (${#modes[@]} * 3) )); threads=$(( threads > 0 ? threads : 1 ))
  for mode in "${modes[@]}"; do
    for seed in 1 2 3; do
      # on a machine with several GPUs the jobs take turns (CUDA_VISIBLE_DEVICES)
      gpu=$(( job % (gpus > 0 ? gpus : 1) )); job=$(( job + 1 ))
      # max_seconds ends a run cleanly with its curve; timeout is only the backstop
      CUDA_VISIBLE_DEVICES=$gpu timeout $(( ${5:-280} + 60 )) python run.py +preset=learn mode=$mode seed=$seed env.num_envs=$envs env.num_threads=$threads \
        agent.num_minibatches=$(( envs / 2 )) schedule.total_env_steps="${4:-4000000}" schedule.max_seconds="${5:-280}" \
        hydra.run.dir="$out/seeds/${mode}_seed$seed" \
        > "$out/seeds_${mode}_${seed}.log" 2>&1 &
    done
  done
  wait
  for f in "$out"/seeds_*.log; do tail -n 2 "$f"; done
fi
