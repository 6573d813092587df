"""The warnings a job's record gains about the machine it ran on, as its parent writes it (`job.parent`)."""

from __future__ import annotations

from typing import Optional

from ppo_bench.record import marks
from ppo_bench.record.line import loads_of
from ppo_bench.record.results import Record
from ppo_bench.record.typed import UNSET


def busy_machine(record: Record) -> Optional[str]:
    """A warning when the 1-minute load exceeded the CPU count around the measurement (marks.overloaded)."""
    loads, cpus = loads_of(record), record.provenance.cpu_count
    if not marks.overloaded(loads, cpus):
        return None
    return (f"{marks.BUSY}1-minute load {max(loads):.1f} > {cpus} CPUs around the measurement; "
            "other work took CPU time from the emulators")


def uncached_imports(record: Record) -> Optional[str]:
    """A warning when the job's process compiled torch from source and could not cache its bytecode:
    every fresh process (a sweep's fork server, each single run) compiles it again, which on the H200
    as lent tripled the imports (provenance.bytecode_cached)."""
    imports = record.timing.imports
    if imports in (None, UNSET) or imports.bytecode_cached is not False:
        return None
    return (f"imports: {imports.took_s:.1f} s, torch compiled from source: its bytecode is not cached and "
            "this Python writes none (PYTHONDONTWRITEBYTECODE, python -B or a read-only install), so every "
            "fresh process compiles it again; cache it once: python -m compileall -q <torch's folder>")
