#!/bin/bash
# On the GPU machine: the 1- and 8-env chain (sendrecv, one batch, graphed PPO with
# overlap) with env_only timed after each of its reps in the same job (schedule.interleave) and
# agent_only in a job of its own each round, in paired rounds as the machine is and with a spinner
# on every CPU (bench/spin_rounds.sh). The collector holds each rep to the chain bound from its own
# env_only rep and the round's agent_only ("Loop over its bound per design"): the env_only jobs of
# 2026-12-02 (commit be1c0e1) drifted 1.5x between rounds; an interleaved rep is the same emulators a second later.
# Each round also times env_only in jobs of its own (agent.overlap=false, which bounds both), so
# the collector's "in jobs of its own" column says whether those jobs and the interleaved reps
# agree on the same emulators (on 2026-12-02 at be1c0e1 they read apart, on two machine starts).
# Results under OUT/<none|spin>/r<round>/{env,loop}, to be collected per condition. A round of
# both conditions should take about 3 min on the H200 (estimated from the jobs of 2026-12-02 at be1c0e1;
# each sweep's first job waits 13-18 s for its imports): two rounds fit one 10-minute command.
#   bash bench/chain_spin_rounds.sh OUT [ROUNDS] [BENCH_STEPS] [REPS]
#   python -m ppo_bench.collect OUT/none --out OUT/none_summary   # and OUT/spin
set -u
out=$1 rounds=${2:-2} steps=${3:-1000} reps=${4:-4}
common="agent.algo=ppo agent.runtime=graphed mode.groups=1 env.num_envs=1,8 schedule.reps=$reps \
  schedule.bench_steps=$steps schedule.warmup=64"
bash "$(dirname "$0")/spin_rounds.sh" "$out" "$rounds" env:"$common mode=env_only agent.overlap=false" \
  loop:"$common mode=agent_only,sendrecv agent.overlap=true schedule.interleave=env_only"
