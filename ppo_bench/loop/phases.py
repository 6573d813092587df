"""Where one loop step's wall time goes, seen from the host.

`schedule.profile=true` runs one more repetition after the timed ones with a
`PhaseClock` among the driver's observers: the driver tells it of each call it
makes into the emulators, the upload, the agent and the action download, and the
loop of each update (see observers; the timed repetitions have no clock to tell).
Each phase is charged its own time, not its callees' (exclusive time), so the
phases and `other` (driver bookkeeping, Python) add up to the repetition's
wall time.

The device runs behind the host, so a phase that launches device work (the
inference, the stores, the update) is charged only the launch. The host waits
for the device where it must: in the action download, which therefore holds
the inference's device time and any backlog queued before it (for example
the update's kernels), and in the final `drain`. With agent.runtime=graphed
`inference` is the launch of the whole act graph (inference, stores and the
action copy), `stores` is empty, and `update` is one graph launch. `observe` is
the host's bookkeeping of a batch's results (episodes, the rollout's staging):
in sendrecv and async it runs after the send, beside the emulators' step, so
that `other` is the loop's own Python on the way from a recv to the next send.
`emulators` is the env adapter's call less the upload inside it, which the
adapter tells as `upload` (where it is given the driver's observers).
"""

from __future__ import annotations

import time
from typing import Any

from ppo_bench.loop.observers import Observer
from ppo_bench.record.parts import PHASES



class PhaseClock(Observer):
    """Exclusive-time clocks of the phases a driver tells, from its construction to `restore`."""

    hears_phases = True

    def __init__(self, driver: Any):
        self.seconds = {name: 0.0 for name in PHASES}
        self._open: list[tuple[str, float, float]] = []  # (phase, start, time in timed callees) per open call
        self._driver = driver
        driver.observers.add(self)

    def begin(self, phase: str) -> None:
        self._open.append((phase, time.perf_counter(), 0.0))

    def end(self, phase: str) -> None:
        now = time.perf_counter()
        name, start, inside = self._open.pop()
        spent = now - start
        self.seconds[name] += spent - inside
        if self._open:
            outer, outer_start, outer_inside = self._open[-1]
            self._open[-1] = (outer, outer_start, outer_inside + spent)

    def restore(self) -> None:
        """The driver goes on untimed."""
        self._driver.observers.remove(self)
        self._open = []

    def report(self, wall_s: float, drain_s: float, loop_steps: int) -> dict:
        """Milliseconds per loop step for each phase; `other` is what the phases do not cover."""
        per_step = {k: 1e3 * v / loop_steps for k, v in self.seconds.items()}
        per_step["drain"] = 1e3 * drain_s / loop_steps
        per_step["other"] = 1e3 * wall_s / loop_steps - sum(per_step.values())
        return {"loop_steps": loop_steps, "wall_s": wall_s,
                "ms_per_loop_step": {k: round(v, 4) for k, v in per_step.items()}}


def describe(phases: dict) -> str:
    """One log line: the phases largest first, with their share of the loop step."""
    ms = phases["ms_per_loop_step"]
    total = sum(ms.values())
    parts = [f"{k} {v:.3f} ({v / total:.0%})" for k, v in sorted(ms.items(), key=lambda kv: -kv[1]) if v > 0]
    return f"where the time goes, ms per loop step of {total:.3f}: " + ", ".join(parts)
