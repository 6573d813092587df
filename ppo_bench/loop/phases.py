"""Where one loop step's wall time goes, seen from the host.

`schedule.profile=true` runs one more repetition after the timed ones with a
clock around each call the loop makes into the emulators, the upload, the
agent and the action download (the timed repetitions stay uninstrumented).
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
"""

from __future__ import annotations

import time
from typing import Any, Callable

# phase name -> (object path on the driver, method); paths that a driver lacks are skipped
PHASES = {
    "emulators": [("vector_env", "step"), ("vector_env", "send"), ("vector_env", "recv")],
    "upload": [("envs.upload", "frames"), ("upload", "frames")],
    "inference": [("agent", "act")],
    "action_download": [("agent", "actions_to_host")],
    "stores": [("agent", "store")],
    "observe": [("agent", "observe")],
    "update": [("agent", "update")],
}


def _target(driver: Any, path: str) -> Any:
    obj = driver
    for name in path.split("."):
        obj = getattr(obj, name, None)
    return obj


class PhaseClock:
    """Wraps the loop's calls on one driver with exclusive-time clocks; `restore` undoes it."""

    def __init__(self, driver: Any):
        self.seconds = {name: 0.0 for name in PHASES}
        self._children: list[float] = []  # time spent in timed callees, per open call
        self._wrapped: list[tuple[Any, str]] = []
        for phase, calls in PHASES.items():
            for path, method in calls:
                obj = _target(driver, path)
                if obj is not None and hasattr(obj, method):
                    setattr(obj, method, self._timed(phase, getattr(obj, method)))
                    self._wrapped.append((obj, method))

    def _timed(self, phase: str, fn: Callable) -> Callable:
        def timed(*args, **kwargs):
            self._children.append(0.0)
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.perf_counter() - t
                self.seconds[phase] += spent - self._children.pop()
                if self._children:
                    self._children[-1] += spent
        return timed

    def restore(self) -> None:
        for obj, method in self._wrapped:
            delattr(obj, method)  # the instance attribute goes; the class's method shows again
        self._wrapped = []

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
