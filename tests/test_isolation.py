"""A job's child process: forked from a server that has imported the job's code, in the
environment, working directory and sys.path this process has when the job starts."""

import os
import sys

from ppo_bench.job.forkserver import server_pid
from ppo_bench.job.isolation import ChildJob, Stage


def what_the_child_sees(name: str, progress) -> dict:
    return {"value": os.environ.get(name), "cwd": os.getcwd(), "pid": os.getpid(),
            "preloaded": "ppo_bench.job.child" in sys.modules, "path": list(sys.path)}


def in_child(name: str = "PPO_BENCH_TEST_VALUE") -> dict:
    # imported here, not at the top: the child imports this module's top to find its function
    job = ChildJob(what_the_child_sees, name, preload="ppo_bench.job.child")
    job.run(60, lambda stage, steps: stage.name)
    assert job.error is None, job.error
    return job.result


def test_children_are_fresh_processes_forked_with_the_jobs_code_imported():
    first, second = in_child(), in_child()
    # the job's code (torch, the drivers) came from the server, not from this module's import of it:
    # the child's function lives here, and the server imported ppo_bench.job.child by the module given
    assert first["preloaded"] and second["preloaded"]
    assert len({first["pid"], second["pid"], os.getpid()}) == 3


def test_a_child_has_this_process_s_environment_cwd_and_path_as_they_are_now(monkeypatch, tmp_path, caplog):
    assert in_child()["value"] is None
    monkeypatch.setenv("PPO_BENCH_TEST_VALUE", "1")  # after the server started: it must start again
    with caplog.at_level("INFO", logger="ppo_bench.job.forkserver"):
        assert in_child()["value"] == "1"
    # and says why: a restart pays the server's imports again (a sweep's first job waits for them)
    assert "fork server restarted: the environment (PPO_BENCH_TEST_VALUE) changed" in caplog.text
    monkeypatch.delenv("PYGAME_HIDE_SUPPORT_PROMPT", raising=False)  # as before gymnasium's import here
    in_child()
    server = server_pid()
    monkeypatch.setenv("PYGAME_HIDE_SUPPORT_PROMPT", "hide")  # as gymnasium's import in the config check
    assert in_child("PYGAME_HIDE_SUPPORT_PROMPT")["value"] == "hide"  # the server's preload set it too
    assert server_pid() == server, "the server restarted for a variable the imports set in it as well"
    monkeypatch.setenv("PPO_BENCH_TEST_VALUE", "2")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    seen = in_child()
    assert seen["value"] == "2" and seen["cwd"] == str(tmp_path) and seen["path"][0] == str(tmp_path / "lib")
    monkeypatch.delenv("PPO_BENCH_TEST_VALUE")
    assert in_child()["value"] is None


# A fork server that stops answering (stopped with SIGSTOP, or stuck) must not block the sweep: not
# when a job's process is started, not when its end is waited for, not at the end of the sweep
# (multiprocessing joins every child it has not seen end). Each test runs the job in a thread it
# waits for with a timeout, and kills the server it stopped, so that nothing outlives it.

import multiprocessing as mp  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

from ppo_bench.job import forkserver, isolation  # noqa: E402


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, TypeError):
        pass


def run_bounded(job: ChildJob, stall_timeout_s: float, wait_s: float = 90) -> float:
    """job.run in a thread; the seconds it took, or a failed test after `wait_s`."""
    thread = threading.Thread(target=job.run, args=(stall_timeout_s, lambda stage, steps: stage.name), daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(wait_s)
    assert not thread.is_alive(), f"the job still waits after {wait_s} s"
    return time.monotonic() - start


def stop_my_server(progress) -> dict:
    os.kill(os.getppid(), signal.SIGSTOP)  # a forked child's parent is the fork server
    return {"server": os.getppid()}


def test_a_fork_server_that_does_not_answer_fails_the_job_within_the_stall_timeout():
    in_child()
    server = server_pid()
    os.kill(server, signal.SIGSTOP)
    try:
        job = ChildJob(what_the_child_sees, "X", preload="ppo_bench.job.child")
        took = run_bounded(job, stall_timeout_s=3)
        assert job.error == ("the fork server did not start the job's process within 3 s (stopped or stuck); "
                             "it is started again for the next job"), job.error
        assert took < 30
    finally:
        _kill(server)
    assert in_child()["preloaded"]  # the next job gets a new server


def test_a_fork_server_that_stops_while_a_job_runs_does_not_block_its_end(monkeypatch):
    monkeypatch.setattr(isolation, "EXIT_WAIT_S", 1.0)
    monkeypatch.setattr(isolation, "SERVER_WAIT_S", 1.0)
    monkeypatch.setattr(forkserver, "SERVER_WAIT_S", 1.0)
    job = ChildJob(stop_my_server, preload="ppo_bench.job.child")
    try:
        took = run_bounded(job, stall_timeout_s=30)
        assert job.error is None and job.result["server"] > 0
        assert took < 30
        # the sweep's end joins every child multiprocessing has not seen end: none may be left
        assert [p for p in mp.active_children() if p.name == "ppo_bench-job"] == []
    finally:
        _kill(job.result and job.result["server"])
    assert in_child()["preloaded"]



def _alive(pid) -> bool:
    """The process runs (a zombie, killed but not yet reaped by multiprocessing, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, TypeError):
        return False


def _refused_run(where) -> None:
    from conftest import compose_config
    from ppo_bench.job import parent

    try:
        parent.run(compose_config("+preset=quick", "env.num_envs=0", tiny=False), where)
    except parent.Refused:
        return
    raise AssertionError("env.num_envs=0 was not refused")


def test_the_server_starts_before_the_config_is_checked_and_a_refused_job_leaves_none(tmp_path, monkeypatch):
    """run() starts the fork server first, so that its imports (torch, dynamo) run while the config
    is checked; a refused job stops the server it started, and leaves one that ran before alone."""
    from ppo_bench.job import parent

    forkserver.stop_server()
    seen, real_check = {}, parent.check

    def check(cfg, multirun):
        seen["server"] = server_pid()
        seen["alive"] = _alive(seen["server"])
        return real_check(cfg, multirun)

    monkeypatch.setattr(parent, "check", check)
    _refused_run(tmp_path / "refused")
    assert seen["alive"], "no fork server was running while the config was checked"
    deadline = time.monotonic() + 10
    while _alive(seen["server"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(seen["server"]), "the refused job left its fork server running"
    assert in_child()["preloaded"]  # the next job starts a new one
    before = server_pid()
    _refused_run(tmp_path / "refused_again")
    assert server_pid() == before and _alive(before)  # not this job's to stop


def test_run_py_starts_a_servers_imports_ahead_where_the_jobs_run_in_its_process():
    """A single run and a sweep by the basic launcher; not another launcher's sweep (its jobs run
    elsewhere, each runner starting its own server) nor a command that runs no job."""
    from ppo_bench.launch import ahead

    for args, here in [(["env.num_envs=8", "+preset=learn_fast"], True), ([], True),
                       (["-m", "env.num_envs=1,8"], True), (["--multirun"], True),
                       (["-m", "hydra/launcher=basic"], True), (["-m", "hydra/launcher=node"], False),
                       (["--multirun", "hydra/launcher=slurm", "hydra.launcher.timeout_min=5"], False),
                       (["-m", "hydra.launcher.n_jobs=2"], False), (["--help"], False), (["-m", "--cfg", "job"], False),
                       (["--cfg", "job"], False), (["hydra.mode=MULTIRUN"], False)]:
        assert ahead.jobs_run_here(args) is here, args


def test_a_server_started_ahead_is_stopped_when_its_job_is_refused(tmp_path):
    """A single run's server, started with its process (launch.ahead), has started no job's process:
    the job's refusal stops it, as it stops one its own runner started."""
    from ppo_bench.launch import ahead

    forkserver.stop_server()
    assert ahead.start_imports(["env.num_envs=0"])
    server = server_pid()
    assert _alive(server)
    _refused_run(tmp_path)
    deadline = time.monotonic() + 10
    while _alive(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(server), "the refused job left the server started ahead running"


# A stalled job is killed, and its error says where its thread waited: a stall is a bug to find
# (ale-py's recv that never returns, or this project's), and the place is what finds it.

def wait_for_ever(progress) -> None:
    progress.enter(Stage.LOOP)
    threading.Event().wait()  # blocks in C with the GIL released, as ale-py's recv does


def test_a_stalled_job_is_killed_and_its_error_names_where_its_main_thread_waited():
    in_child()  # the server is up: the 2 s below are the stall's, not the server's imports
    job = ChildJob(wait_for_ever, preload="ppo_bench.job.child")
    took = run_bounded(job, stall_timeout_s=2)
    assert job.result is None and took < 30
    where, _, place = job.error.partition("; ")
    assert where == "no progress for 2 s in LOOP"
    # the innermost frame (threading's wait) and the one that called it: this test's function
    assert place.startswith("its main thread was in wait (") and "threading.py:" in place, place
    assert place.endswith(f", called from wait_for_ever (tests/test_isolation.py:{wait_for_ever.__code__.co_firstlineno + 2})"), place
    # every thread's stack, for the record's traceback: the main one and the child's watcher of its parent
    assert job.traceback.startswith("the job's threads when it was stopped (faulthandler):\n")
    assert "in wait_for_ever" in job.traceback and "in _listen_to_parent" in job.traceback
    assert [p for p in mp.active_children() if p.name == "ppo_bench-job"] == []


def wait_with_reports(progress) -> None:
    progress.on_stall(lambda: "the device: acting stream busy")
    progress.on_stall(lambda: "")  # nothing to add
    progress.on_stall(lambda: 1 / 0)
    progress.enter(Stage.LOOP)
    threading.Event().wait()


def test_a_stalled_job_s_error_carries_what_its_stall_reports_say():
    """Asked from the child's other thread while the main one waits (as in a CUDA wait: the device
    still busy or not), before its stacks; a report that fails says so and the others still come."""
    in_child()
    job = ChildJob(wait_with_reports, preload="ppo_bench.job.child")
    run_bounded(job, stall_timeout_s=2)
    parts = job.error.split("; ")
    assert parts[:2] == ["no progress for 2 s in LOOP", "the device: acting stream busy"], job.error
    assert parts[2] == "(stall report failed: ZeroDivisionError: division by zero)", job.error
    assert parts[3].startswith("its main thread was in wait ("), job.error


def test_the_stall_s_place_skips_library_frames_to_the_code_that_called_them():
    """ale-py's recv, in an installed package, called from this project's adapter: both named."""
    from ppo_bench.job.stacks import _LIBRARIES, Stacks, where_it_waits

    site = next(p for p in _LIBRARIES if "packages" in p)
    main = "0x00007f0000000001"
    dump = (f"Thread 0x00007f0000000002 (most recent call first):\n"
            f'  File "{site}/threading.py", line 5 in watch\n\n'
            f"Current thread {main} (most recent call first):\n"
            f'  File "{site}/ale_py/vector_env.py", line 236 in recv\n'
            f'  File "{site}/numpy/core/fromnumeric.py", line 9 in take\n'
            f'  File "/home/me/ppo_bench/ppo_bench/env/torch_envs.py", line 90 in recv\n'
            f'  File "/home/me/ppo_bench/ppo_bench/loop/drivers.py", line 120 in step\n')
    assert where_it_waits(Stacks(main, dump)) == ("its main thread was in recv (ale_py/vector_env.py:236), "
                                                  "called from recv (env/torch_envs.py:90)")
    # the project's own frame innermost: named once
    ours = dump.replace(f'  File "{site}/ale_py/vector_env.py", line 236 in recv\n'
                        f'  File "{site}/numpy/core/fromnumeric.py", line 9 in take\n', "")
    assert where_it_waits(Stacks(main, ours)) == "its main thread was in recv (env/torch_envs.py:90)"
    assert where_it_waits(Stacks("0x0000000000000009", dump)) == "its main thread's stack was not in the dump"


# Ctrl-C while a job's process starts its fork server, or waits for it: a sweep sends each job its
# signal once, so a job must neither lose it nor leave the server to answer a job that stopped. Each
# runs in a fresh interpreter, whose first server start is its own and whose main thread raises
# KeyboardInterrupt as a job's does (its signals reset: as_a_terminal_s).

import subprocess  # noqa: E402
import textwrap  # noqa: E402

from conftest import ROOT, as_a_terminal_s  # noqa: E402

PRELOAD = """import os, pathlib, signal, time
from multiprocessing.context import ForkServerProcess
pathlib.Path("preloading").touch()
while not os.path.exists("go"):  # the test says when the server's import ends
    time.sleep(0.01)
pathlib.Path("preloaded").touch()


def late():  # a child's work that leaves a mark only if the child lives for a while
    time.sleep(2)
    pathlib.Path("child-ran").touch()


before_start = None  # what a test runs in the job's start thread before the start itself


class Hooked(ForkServerProcess):
    def start(self):
        before_start()
        super().start()


def start_with_ctrl_c(ctx, proc, then=lambda: None):
    # The job's start, a Ctrl-C sent from its start thread just before the start itself, and `then`
    # after it (what holds the start back); prints whether it started or raised.
    global before_start
    from ppo_bench.job import forkserver

    def ctrl_c():
        os.kill(os.getpid(), signal.SIGINT)
        then()

    before_start = ctrl_c
    try:
        forkserver.start_child(ctx, proc, timeout=60)
        print("started")
    except KeyboardInterrupt:
        print("raised")


def stopped_server_process(target, *args):
    # A job's process whose server is stopped (SIGSTOP); its start runs `before_start` first. A
    # subclass here, not a patched instance: the instance is pickled for the child, which could not
    # load a function of the script's (it printed a traceback where a server forked it).
    from ppo_bench.job import forkserver

    ctx = forkserver.context("slow_preload")
    forkserver.ensure_running()
    server = forkserver.server_pid()
    os.kill(server, signal.SIGSTOP)
    return ctx, server, Hooked(target=target, args=args, daemon=True)
"""
"""A module `slow_preload` for the fork server to import, in the test's folder (its working directory)."""

PROCS = """def state(pid):  # a process's state letter (Z: ended, not yet reaped), "gone" once reaped
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"
"""
"""A module `procs` beside it, without side effects: the scripts read a process's state with it."""


def run_script(script: str, tmp_path) -> list[str]:
    """`script` in a fresh interpreter, in `tmp_path`, with `slow_preload` and `procs` on its path; its printed
    lines."""
    (tmp_path / "slow_preload.py").write_text(PRELOAD)
    (tmp_path / "procs.py").write_text(PROCS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                         timeout=120, env=env, cwd=tmp_path, preexec_fn=as_a_terminal_s)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    return out.stdout.splitlines()


def test_a_ctrl_c_while_the_fork_server_starts_is_raised_once_it_has_started_and_does_not_end_it(tmp_path):
    lines = run_script("""
        import os, signal, time
        import multiprocessing.forkserver as mp_forkserver
        import procs
        from ppo_bench.job import forkserver

        forkserver.context("slow_preload")
        real = mp_forkserver.ensure_running

        def ensure_running():
            os.kill(os.getpid(), signal.SIGINT)  # the sweep's Ctrl-C, in the start's milliseconds
            real()

        mp_forkserver.ensure_running = ensure_running
        try:
            forkserver.ensure_running()
            print("lost")
        except KeyboardInterrupt:
            print("raised")
        server = forkserver.server_pid()
        state = lambda: procs.state(server)  # noqa: E731

        while not os.path.exists("preloading"):
            time.sleep(0.01)
        os.kill(server, signal.SIGINT)  # a terminal's Ctrl-C, while the server imports its preload
        open("go", "w").close()
        while not os.path.exists("preloaded") and state() not in ("Z", "gone"):
            time.sleep(0.01)
        print("server", state())
        forkserver.stop_server()
    """, tmp_path)
    assert lines[0] == "raised", "the Ctrl-C that came while the fork server started was lost"
    assert lines[1] in ("server S", "server R"), "a Ctrl-C during its preload ended the fork server"


def test_a_start_that_comes_only_after_the_ctrl_c_s_stop_leaves_no_process(tmp_path):
    """On a busy machine the start thread can reach the start only after the Ctrl-C ended the wait and
    killed the server: multiprocessing then starts another server, which forks the child of a job that
    stopped. That child (and that server) are ended: no child's work, no traceback."""
    (tmp_path / "go").touch()
    lines = run_script("""
        import os, time
        import procs, slow_preload

        ctx, server, proc = slow_preload.stopped_server_process(slow_preload.late)

        def until_the_server_is_gone():  # the start only once the stop has ended the server
            while procs.state(server) not in ("Z", "X", "gone"):
                time.sleep(0.01)

        slow_preload.start_with_ctrl_c(ctx, proc, then=until_the_server_is_gone)
        time.sleep(4)
        print("child ran" if os.path.exists("child-ran") else "no child")
    """, tmp_path)
    assert lines == ["raised", "no child"]


def test_a_start_that_comes_only_after_the_job_gave_up_on_it_ends_its_child(tmp_path):
    """Later still: the start thread reaches the start only after the job's wait for it has given up
    (SERVER_WAIT_S after the stop) and the job has gone on. The child that start forks is a job's
    that is over, and nothing else will end it: the start thread ends it as its start returns."""
    (tmp_path / "go").touch()
    lines = run_script("""
        import os, threading, time
        import slow_preload
        from ppo_bench.job import forkserver

        forkserver.SERVER_WAIT_S = 0.5
        ctx, server, proc = slow_preload.stopped_server_process(slow_preload.late)
        gave_up = threading.Event()
        slow_preload.start_with_ctrl_c(ctx, proc, then=gave_up.wait)  # the start once the job gave up
        gave_up.set()
        deadline = time.monotonic() + 60
        while not proc.pid and time.monotonic() < deadline:  # the late start, however slow the machine
            time.sleep(0.01)
        proc.join(30)  # a child left alone ends on its own after 2 s, having left its mark
        print("exit code", proc.exitcode)
        print("child ran" if os.path.exists("child-ran") else "no child")
        forkserver.stop_server()
    """, tmp_path)
    assert lines == ["raised", "exit code -9", "no child"]


def test_a_ctrl_c_while_the_job_waits_for_the_server_s_answer_stops_the_server(tmp_path):
    """The server stopped (SIGSTOP), the job waits for the child's pid it will not send; the Ctrl-C
    ends the wait, and the server is stopped so that it answers no job that has stopped."""
    (tmp_path / "go").touch()  # the server imports its preload at once
    lines = run_script("""
        import os, signal, time
        import procs, slow_preload

        ctx, server, proc = slow_preload.stopped_server_process(time.sleep, 0)
        slow_preload.start_with_ctrl_c(ctx, proc)  # the Ctrl-C comes as the job waits
        state = procs.state(server)  # stopped: a zombie, dying, or already reaped
        print("server", state)
        if state != "gone":
            os.kill(server, signal.SIGKILL)
    """, tmp_path)
    assert lines[0] == "raised"
    assert lines[1] in ("server Z", "server X", "server gone"), "the server was left to answer a job that had stopped"
