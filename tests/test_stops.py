"""A stop (Ctrl-C, SIGTERM, SIGHUP) that comes while a job begins is held until the job's runner can
record it, raised once, and never lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from conftest import ROOT, as_a_terminal_s, compose_config, fault_env
from ppo_bench.job import parent
from ppo_bench.record.results import read_result
from ppo_bench.signals import Terminated, stops_held, stops_raise


@pytest.fixture(autouse=True)
def heeded_stops():
    """The stop signals handled as in a terminal's process, whatever this one inherited (tests run
    under nohup ignore SIGHUP, and an ignored signal stays ignored), then as they were."""
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    yield
    for s, handler in previous.items():
        signal.signal(s, handler)


def test_a_stop_before_the_runner_is_raised_as_the_runner_begins_and_only_then():
    reached = []
    with pytest.raises(Terminated, match="SIGTERM"):
        with stops_held():
            signal.raise_signal(signal.SIGTERM)
            reached.append("held")  # not raised where it came
            with stops_raise():
                reached.append("runner")
    assert reached == ["held"]


def test_inside_the_runner_a_stop_raises_where_it_comes_and_once():
    with stops_held():
        with pytest.raises(KeyboardInterrupt):
            with stops_raise():
                signal.raise_signal(signal.SIGINT)
                pytest.fail("Ctrl-C did not raise inside the runner")
    # a second stop while one is held raises at once (nothing keeps a job from stopping); the held one
    # is not raised after it
    with pytest.raises(Terminated), stops_held():
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGTERM)
        pytest.fail("a second stop was held")


def test_a_stop_that_came_after_the_record_or_for_a_skipped_job_is_raised_as_the_hold_ends():
    with pytest.raises(Terminated, match="SIGHUP"):
        with stops_held():
            with stops_raise():
                pass
            signal.raise_signal(signal.SIGHUP)  # the record is written: held, then raised here
    # an exception already on its way up is not replaced by a held stop
    with pytest.raises(KeyboardInterrupt):
        with stops_held():
            signal.raise_signal(signal.SIGTERM)
            raise KeyboardInterrupt
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handlers are as before


def test_a_job_that_fails_with_a_stop_held_raises_the_stop_with_its_failure_as_context():
    with pytest.raises(KeyboardInterrupt) as raised, stops_held():
        signal.raise_signal(signal.SIGINT)  # while Hydra composed the config, which then failed
        raise ValueError("a config that does not compose")
    assert isinstance(raised.value.__context__, ValueError)


def test_an_ignored_signal_stays_ignored_but_a_pool_s_worker_takes_it_while_it_runs_a_job():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a shell's background job
    try:
        with stops_held():
            signal.raise_signal(signal.SIGINT)
            with stops_raise():
                signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        with pytest.raises(KeyboardInterrupt), stops_held(ignored_too=True):  # the sweep sent it on
            signal.raise_signal(signal.SIGINT)
            with stops_raise():
                pytest.fail("the stop was not raised as the runner began")
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_job_stopped_before_its_runner_began_is_recorded_as_stopped_and_builds_nothing(tmp_path, monkeypatch):
    started = []
    monkeypatch.setattr(parent, "start_server", lambda *a: started.append(a))
    cfg = compose_config("+preset=quick", "device=cpu")
    with stops_held():
        signal.raise_signal(signal.SIGTERM)  # while the launcher composed its config
        with pytest.raises(Terminated):
            parent.run(cfg, output_dir=tmp_path)
    record = read_result(tmp_path / "result.json")
    assert (record["status"], record["error"]) == ("failed", "Terminated: SIGTERM")
    assert started == []  # stopped before the fork server or a check


def test_a_ctrl_c_as_a_job_ends_keeps_its_record_and_stops_the_sweep_before_the_next(tmp_path):
    # two jobs that build nothing (skipped); the Ctrl-C comes as the first logs its line, its record written
    cmd = [sys.executable, "run.py", "-m", f"hydra.sweep.dir={tmp_path}", "env.num_envs=1", "mode=async",
           "device=cpu", "seed=0,1", "collect=false"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, start_new_session=True,
                         env={**os.environ, **fault_env("ppo_bench.job.parent:_log_outcome:1:sigint")},
                         preexec_fn=as_a_terminal_s)
    assert out.returncode == 130 and "Traceback" not in out.stderr, out.stderr[-3000:]
    records = {p.parent.name: read_result(p) for p in tmp_path.glob("*/result.json")}
    assert [(name.endswith("seed=0"), r["status"]) for name, r in records.items()] == [(True, "skipped")]
    assert out.stderr.splitlines()[-1] == ("stopped by Ctrl-C: no job was in progress; "
                                           "run again with resume=true to finish")


STOPPED_AS_IT_LOADS = """
import os, signal, sys
from ppo_bench.config.schema import known_games
from ppo_bench.signals import Terminated, stops_held, stops_raise

sent = []


def stop_as_it_loads(event, args):  # once, as the import of ale-py's native module begins
    if event == "import" and args[0] == "ale_py._ale_py" and not sent:
        sent.append(signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)


sys.addaudithook(stop_as_it_loads)
try:
    with stops_held(), stops_raise():  # a job's runner, in its config check
        known_games()
    print("not stopped")
except Terminated:
    print("stopped", len(sent), "ale_py.roms" in sys.modules)  # the import went on to its end
"""


def test_a_stop_as_the_check_imports_ale_py_is_raised_once_the_import_is_whole():
    """The first job of a process imports ale-py in its config check: a stop raised inside the
    import of its native module crashed the process now and then (a segfault, no record, no end
    note); held until the import has ended, it is raised there and ale-py is whole."""
    out = subprocess.run([sys.executable, "-c", STOPPED_AS_IT_LOADS], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, preexec_fn=as_a_terminal_s)
    assert (out.returncode, out.stdout) == (0, "stopped 1 True\n"), out.stderr[-3000:]


def test_a_stop_held_back_is_taken_as_its_stop_not_dropped():
    """The collector's command line holds stops back once it has its outcome; one that came then is
    taken and said (collect.cli.main), not dropped as the process exits with 0."""
    from ppo_bench.signals import pending_stop

    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        assert pending_stop() is None
        signal.pthread_kill(threading.get_ident(),
                            signal.SIGTERM)  # to this thread, which holds it back (the test's others may not)
        stop = pending_stop()
        assert isinstance(stop, Terminated) and stop.signum == signal.SIGTERM
        assert pending_stop() is None  # taken: not delivered again
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
