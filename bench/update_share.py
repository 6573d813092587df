"""What a repetition's length does to its throughput: from profiled step jobs
(`schedule.profile=True`), one update's milliseconds and a rollout step's, and what reps of L loop
steps holding k updates read against a training loop's own pace (one update per num_steps).

    python bench/update_share.py ARCHIVE.tar.gz|FOLDER [...]

The reference's algorithm counts a repetition's updates from its start (one after loop step
num_steps - 1, 2 num_steps - 1, ...), so a rep of L steps holds L // num_steps of them where a
training loop makes L / num_steps; the shorter the rep past a whole rollout, the larger the share
it leaves out. The profiled rep (`phases`) times every phase of one rep of bench_steps loop steps
on the device's clock; with u the update's ms and r a rollout step's ms (everything else), reps
of (L, k) run at L / (L r + k u) loop steps a ms, a training loop at n / (n r + u). The columns
are those ratios for the schedules the presets and the reference use; each assumes the phases'
costs do not depend on the rep's length. The profile charges a phase the host's time (see
loop.phases): the update's device work that the host did not wait for falls in the next step's
action download, so u is the update's host time, and the ratios a lower bound of the effect (with
agent.runtime=graphed the update is one graph launch, and they read about 1).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ppo_bench.collect.sources import walk

SCHEDULES = {64: [(64, 1), (100, 1), (200, 3)], 128: [(128, 1), (200, 1), (1000, 7)]}
"""num_steps: the (loop steps, updates) of the reps to read against the loop: the presets' whole
rollouts, their earlier reps (100 and 200 steps), and the reference's --quick (200 steps of 64-step
rollouts) and full schedule (1000 of 128)."""


def records(path: str):
    """The records in a sweep archive or under a folder, found as the collector finds them."""
    found = walk([Path(path)])
    for result in sorted(found.results):
        yield json.loads(found.read_bytes(result))


def rows(path: str):
    for r in records(path):
        phases = r.get("phases")
        if r.get("status") != "ok" or not phases:
            continue
        n, steps = r["config"]["agent"]["num_steps"], phases["loop_steps"]
        ms = phases["ms_per_loop_step"]
        update = ms["update"] * steps / (steps // n)
        rollout = sum(ms.values()) - ms["update"]
        loop = n / (n * rollout + update)
        yield (r["mode"], r["config"]["agent"]["runtime"], r["num_envs"], r.get("round"), n, update, rollout,
               [(length, k, length / (length * rollout + k * update) / loop) for length, k in SCHEDULES[n]])


def main(paths: list[str]) -> None:
    print("| mode | runtime | num_envs | round | num_steps | update ms | rollout step ms | update in loop steps | "
          "reps (steps, updates): read / the loop's |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        for mode, runtime, num_envs, rnd, n, update, rollout, reads in rows(path):
            said = ", ".join(f"({length}, {k}): {x:.3f}" for length, k, x in reads)
            print(f"| {mode} | {runtime} | {num_envs} | {rnd} | {n} | {update:.1f} | {rollout:.3f} | "
                  f"{update / rollout:.1f} | {said} |")


if __name__ == "__main__":
    main(sys.argv[1:])
