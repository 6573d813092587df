"""Does launching the act graph cost more right after the loop's thread blocked (the loop held to 0.95
of its chain bound at 1 and 8 envs)? An experiment, not a feature: the job's own sendrecv driver (1 env, or
--num-envs in one batch) is built in this process (as bench/pin_probe.py does), and the same graphed
act, on the same staged frames, is timed after four kinds of wait, alternating in rounds:

- back:  nothing (agent_only's back-to-back acts, which the chain bound's t_agent comes from);
- spin:  the thread busy for about one emulator step (a Python loop on the clock: the thread stays
         on its core, and nothing else in the process runs);
- sleep: the thread blocked in the kernel for about as long (time.sleep);
- recv:  the loop's own wait: the actions sent to ale-py's emulator, then its blocking recv.

Why: the profiled 1-env rep of 2026-12-01 (commit 0824d0f) put most of the loop's gap to the chain bound in the
act's launch right after a recv (0.128 ms, against 0.042 ms back to back in agent_only). If a
launch after sleep or recv costs that much more and after spin does not, the cost is the thread's
wake-up, which any loop that blocks while its emulator steps pays, and which t_agent, measured
back to back, does not contain. Spinning in the loop is no way out: ale-py's recv waits in C++,
and a second Python thread that spins slowed ale-py's step 9x (the GIL handoff).

    python bench/wake_probe.py --rounds 3 --steps 2000
    python bench/wake_probe.py --num-envs 8   # the 8-env chain bar: one batch of 8

With --emulators the other side of the chain: the emulators' step (send to recv, the wait that
env_only's t_env times back to back) timed after a pause of one act between the recv and the next
send: none (env_only's loop), a spin, a sleep, the act itself (the loop's own pause: upload,
launch and action download), or `loop`: the act, and the agent's observe after the send. If it
takes longer after a pause, the emulator threads' wake-up is part of every loop step too, and
t_env, measured back to back, leaves it out as t_agent leaves out the loop thread's.

    python bench/wake_probe.py --num-envs 8 --emulators
"""

import argparse
import statistics
import time

import numpy as np
import torch

from ppo_bench.job import child
from probe_config import RUNTIME, compose

WAITS = ("back", "spin", "sleep", "recv")


def upload(agent, obs: np.ndarray) -> torch.Tensor:
    """The frames as the loop hands them to the act: through the runtime's pinned staging, if it has one."""
    return agent.uploader(obs) if agent.uploader is not None else torch.from_numpy(obs).to(agent.device)


def idle(kind: str, gap_s: float) -> None:
    """spin: the thread busy on the clock for gap_s; sleep: blocked in the kernel as long; else nothing."""
    if kind == "spin":
        end = time.perf_counter() + gap_s
        while time.perf_counter() < end:
            pass
    elif kind == "sleep":
        time.sleep(gap_s)


def act_once(agent, frames: torch.Tensor, s: int, ids: np.ndarray) -> tuple[np.ndarray, float, float, bool]:
    """One loop step's act: the actions on the host, the launch's and the download's seconds, and
    whether an update followed (run and waited for: the act after it waits on it)."""
    t0 = time.perf_counter()
    a, v = agent.act(frames, s, ids)
    t1 = time.perf_counter()
    actions = np.asarray(agent.actions_to_host(a)).copy()
    t2 = time.perf_counter()
    agent.store(frames, a, v)
    updated = agent.update_after(s + 1)
    if updated:
        agent.update()
        agent.wait_for_update()
    return actions, t1 - t0, t2 - t1, updated


def timed_acts(driver, wait: str, steps: int, gap_s: float) -> tuple[list[float], list[float]]:
    """Per act: the launch (the host's act call) and the action download, after `wait`."""
    agent, env = driver.agent, driver.vector_env
    n = agent.spec.num_envs
    ids = np.arange(n, dtype=np.int64)
    obs = np.full((n, *agent.spec.obs_shape), 87, dtype=np.uint8)
    actions = np.zeros(n, dtype=np.int64)
    launch, download = [], []
    for s in range(steps):
        frames = upload(agent, obs)
        idle(wait, gap_s)
        if wait == "recv":
            env.send(actions)
            env.recv()
        actions, launch_s, download_s, updated = act_once(agent, frames, s, ids)
        if updated:
            continue  # the act after an update waits for it: not counted
        launch.append(launch_s)
        download.append(download_s)
    return launch, download


PAUSES = ("back", "spin", "sleep", "act", "loop")


def timed_steps(driver, pause: str, steps: int, gap_s: float) -> list[float]:
    """Per emulator step: send to recv, after `pause` since the last recv. `loop` is `act` with the
    loop's bookkeeping after the send too (the agent observes the last acted batch's results
    beside the emulators' step, as SendRecvDriver does)."""
    agent, env = driver.agent, driver.vector_env
    n = agent.spec.num_envs
    ids = np.arange(n, dtype=np.int64)
    actions = np.zeros(n, dtype=np.int64)
    obs, results, step_s = None, None, []
    for s in range(steps):
        idle(pause, gap_s)
        acted = pause in ("act", "loop") and obs is not None
        if acted:
            actions = act_once(agent, upload(agent, obs), s, ids)[0]
        t = time.perf_counter()
        env.send(actions)
        if pause == "loop" and results is not None:
            agent.observe(ids, *results)
        obs, *out = env.recv()[:4]
        step_s.append(time.perf_counter() - t)
        results = tuple(out) if acted else None
    return step_s[1:]


def emulators_side(driver, rounds: int, steps: int) -> None:
    """--emulators: the emulators' step after each kind of pause, the pause one act long; medians
    and means (a slow wake-up now and then moves the mean, which is what throughput pays)."""
    launch, download = timed_acts(driver, "back", 500, 0.0)  # capture, warm-up and the act's length
    gap_s = statistics.median(launch) + statistics.median(download)
    print(f"one act back to back (launch + download, medians): {gap_s * 1e3:.3f} ms; "
          f"spin and sleep for as long", flush=True)
    rows: dict[str, list[tuple[float, float, float]]] = {p: [] for p in PAUSES}
    for r in range(rounds):
        for pause in (PAUSES if r % 2 == 0 else PAUSES[::-1]):
            step_s = timed_steps(driver, pause, steps, gap_s)
            rows[pause].append((statistics.median(step_s) * 1e3, statistics.fmean(step_s) * 1e3,
                                float(np.percentile(step_s, 90)) * 1e3))
            print(f"round {r} {pause:<5} emulator step median {rows[pause][-1][0]:.3f} ms, mean "
                  f"{rows[pause][-1][1]:.3f}, p90 {rows[pause][-1][2]:.3f} (of {len(step_s)})", flush=True)
    print("\npause  emulator step, send to recv (ms per round: median / mean / p90)")
    for pause in PAUSES:
        print(f"{pause:<6} {'  '.join('/'.join(f'{x:.3f}' for x in row) for row in rows[pause])}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--num-envs", type=int, default=1, help="envs in the one sendrecv batch")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--gap-ms", type=float, default=None,
                   help="spin and sleep for this long (default: the emulator's median step, measured here)")
    p.add_argument("--emulators", action="store_true",
                   help="time the emulators' step after a pause of one act instead (see above)")
    args = p.parse_args()
    cfg = compose([f"env.num_envs={args.num_envs}", "mode=sendrecv", "mode.groups=1", "agent.algo=ppo",
                   "agent.runtime=" + RUNTIME])
    device = child.resolve_device(cfg.device)
    torch.set_float32_matmul_precision("high")
    driver = child.build(cfg, device)
    try:
        env = driver.vector_env
        env.reset(seed=0)
        if args.emulators:
            emulators_side(driver, args.rounds, args.steps)
            return
        step_s = []
        for _ in range(500):  # the emulator's own step, for the gap
            t = time.perf_counter()
            env.send(np.zeros(args.num_envs, dtype=np.int64))
            env.recv()
            step_s.append(time.perf_counter() - t)
        gap_s = args.gap_ms / 1e3 if args.gap_ms else statistics.median(step_s)
        print(f"emulator step (send + recv), median of 500: {statistics.median(step_s) * 1e3:.3f} ms; "
              f"spin and sleep for {gap_s * 1e3:.3f} ms", flush=True)
        timed_acts(driver, "back", 300, gap_s)  # capture and warm-up
        rows: dict[str, list[tuple[float, float]]] = {w: [] for w in WAITS}
        for r in range(args.rounds):
            order = WAITS if r % 2 == 0 else WAITS[::-1]
            for wait in order:
                launch, download = timed_acts(driver, wait, args.steps, gap_s)
                med = (statistics.median(launch) * 1e3, statistics.median(download) * 1e3)
                rows[wait].append(med)
                print(f"round {r} {wait:<5} launch {med[0]:.3f} ms, download {med[1]:.3f} ms "
                      f"(medians of {len(launch)} acts)", flush=True)
    finally:
        driver.close()
    if args.emulators:
        return
    print("\nwait   launch (ms, per round)        download (ms, per round)")
    for wait in WAITS:
        launch = " ".join(f"{x:.3f}" for x, _ in rows[wait])
        download = " ".join(f"{y:.3f}" for _, y in rows[wait])
        print(f"{wait:<6} {launch:<29} {download}")


if __name__ == "__main__":
    t = time.monotonic()
    main()
    print(f"{time.monotonic() - t:.0f} s")
