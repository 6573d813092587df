"""A sweep imports its summary's modules in a thread beside its first job (`launch.sweep.import_the_summary`):
the thread must neither take the stops that the main thread holds back, nor leave the summary written at
exit unable to import them when the sweep stops before the thread is done. Each case runs in a fresh
interpreter, where the modules are not imported yet."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def run(script: str) -> str:
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_a_stop_sent_while_the_thread_lives_still_waits_for_the_main_threads_block():
    """Ctrl-C sent to the process while the main thread holds it back (`signals.blocked`, as a record is
    written) arrives when the block ends: a thread without the block would take it, and Python would raise
    it in the main thread inside the block. The thread is held alive here, waiting, for the whole test."""
    script = """
import os, signal, threading, time
from ppo_bench import signals
from ppo_bench.launch import sweep
signal.signal(signal.SIGINT, signal.default_int_handler)  # not the ignored one a background run inherits
hold = threading.Event()
sweep._summary_imports = lambda: hold.wait(30)
thread = sweep.import_the_summary()
order = []
try:
    with signals.blocked([signal.SIGINT]):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.3)
        order.append("block ended")
    time.sleep(0.3)
except KeyboardInterrupt:
    order.append("Ctrl-C")
print(thread.is_alive(), order)
hold.set()
"""
    assert run(script).strip() == "True ['block ended', 'Ctrl-C']"


def test_a_summary_written_at_exit_imports_its_modules_when_the_sweep_stopped_as_the_thread_began():
    """The sweep's process exits (a stop, right after the sweep began) while the thread imports: the
    interpreter's exit flags threads it has yet to join, and pandas' import registers an exit hook,
    which then fails; the summary written at exit (atexit) imports the collector after that."""
    script = """
import atexit, sys
from ppo_bench.launch import sweep

def summary_at_exit():
    try:
        from ppo_bench.collect import collect  # noqa: F401
        print("imported")
    except Exception as e:
        print("failed:", type(e).__name__, e)

atexit.register(summary_at_exit)
sweep.import_the_summary()
sys.exit(0)
"""
    assert run(script).strip() == "imported"
