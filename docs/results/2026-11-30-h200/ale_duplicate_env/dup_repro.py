"""Does ale-py's AtariVectorEnv (batch_size < num_envs) ever return one env twice in a batch?
Random actions, send/recv for SECONDS; prints counts. Usage: python dup_repro.py SECONDS NUM_ENVS BATCH THREADS"""
import sys, time, numpy as np, ale_py, gymnasium as gym
gym.register_envs(ale_py)
secs, n, b, t = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
envs = ale_py.AtariVectorEnv("pong", num_envs=n, batch_size=b, num_threads=t, frameskip=5, repeat_action_probability=0.0)
obs, info = envs.reset(seed=0)
rng = np.random.default_rng(0)
steps = dups = 0; first = None; seen = np.zeros(n, np.int64)
end = time.time() + secs
while time.time() < end:
    envs.send(rng.integers(0, 6, size=b))
    obs, r, te, tr, info = envs.recv()
    ids = info["env_id"]; steps += 1; seen[ids] += 1
    if len(np.unique(ids)) != len(ids):
        dups += 1
        if first is None: first = (steps, ids.tolist())
print(f"n={n} b={b} threads={t}: {steps} batches, {dups} with a duplicate env, first {first}, env counts min {seen.min()} max {seen.max()}", flush=True)
