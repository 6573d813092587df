"""A job's child process: forked from a server that has imported the job's code, in the
environment, working directory and sys.path this process has when the job starts."""

import importlib
import os
import sys

from ppo_bench.isolation import ChildJob


def what_the_child_sees(name: str, progress) -> dict:
    return {"value": os.environ.get(name), "cwd": os.getcwd(), "pid": os.getpid(),
            "preloaded": "ppo_bench.job" in sys.modules, "path": list(sys.path)}


def in_child(name: str = "PPO_BENCH_TEST_VALUE") -> dict:
    # imported here, not at the top: the child imports this module's top to find its function
    job = ChildJob(what_the_child_sees, name, preload=importlib.import_module("ppo_bench.job"))
    job.run(60, lambda stage, steps: stage)
    assert job.error is None, job.error
    return job.result


def test_children_are_fresh_processes_forked_with_the_jobs_code_imported():
    first, second = in_child(), in_child()
    # the job's code (torch, the drivers) came from the server, not from this module's import of it:
    # the child's function lives here, and the server imported ppo_bench.job by the module given
    assert first["preloaded"] and second["preloaded"]
    assert len({first["pid"], second["pid"], os.getpid()}) == 3


def test_a_child_has_this_process_s_environment_cwd_and_path_as_they_are_now(monkeypatch, tmp_path):
    assert in_child()["value"] is None
    monkeypatch.setenv("PPO_BENCH_TEST_VALUE", "1")  # after the server started: it must start again
    assert in_child()["value"] == "1"
    monkeypatch.setenv("PPO_BENCH_TEST_VALUE", "2")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    seen = in_child()
    assert seen["value"] == "2" and seen["cwd"] == str(tmp_path) and seen["path"][0] == str(tmp_path / "lib")
    monkeypatch.delenv("PPO_BENCH_TEST_VALUE")
    assert in_child()["value"] is None
