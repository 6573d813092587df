"""What a driver tells: each loop step's end, and the phases of the calls it makes.

An observer is told, it changes nothing: the job's progress counter (`on_step`, which the
stall watch reads), the profile's phase clocks (`begin` and `end` of each phase, see
phases). A driver holds one `Observers` and tells it around every call into the
emulators, the upload and the agent (`call`), and after every loop step (`on_step`); the
loop tells it around the update. Nothing is wrapped or replaced: with no phase observer a
phase costs one call that returns at once, so the timed repetitions carry no clocks.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

T = TypeVar("T")


class Observer:
    """What a driver tells an observer; each method does nothing here, and a subclass overrides
    what it wants to hear."""

    hears_phases = False
    """Whether `begin` and `end` are wanted (told only where some observer wants them)."""

    def on_step(self, rollout_step: int) -> None:
        """A loop step at rollout step `rollout_step` has ended."""

    def begin(self, phase: str) -> None:
        """A call of `phase` (see phases.PHASES) begins."""

    def end(self, phase: str) -> None:
        """The call of `phase` that began last has returned (or raised)."""


class EachStep(Observer):
    """Calls `count()` after each loop step: a job's progress counter."""

    def __init__(self, count: Callable[[], Any]):
        self._count = count

    def on_step(self, rollout_step: int) -> None:
        self._count()


class Observers(Observer):
    """The observers of one driver, told in the order they were added; what a driver tells."""

    def __init__(self) -> None:
        self._all: tuple[Observer, ...] = ()
        self._phases: tuple[Observer, ...] = ()

    def add(self, observer: Observer) -> None:
        self._all += (observer,)
        self._phases = tuple(o for o in self._all if o.hears_phases)

    def remove(self, observer: Observer) -> None:
        self._all = tuple(o for o in self._all if o is not observer)
        self._phases = tuple(o for o in self._all if o.hears_phases)

    def on_step(self, rollout_step: int) -> None:
        for observer in self._all:
            observer.on_step(rollout_step)

    def begin(self, phase: str) -> None:
        for observer in self._phases:
            observer.begin(phase)

    def end(self, phase: str) -> None:
        for observer in reversed(self._phases):
            observer.end(phase)

    def call(self, phase: str, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)`, told as one call of `phase` to the observers that hear phases."""
        if not self._phases:
            return fn(*args)
        self.begin(phase)
        try:
            return fn(*args)
        finally:
            self.end(phase)
