"""The collector never pools two machines' throughput into one cell (collect/machines.py), and a record
names the machine it ran on (record/provenance.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ppo_bench.collect import collect, machines, panels
from ppo_bench.record import provenance, results
from test_collect import write
from test_collect_learning import learn, learning_row

H200 = {"host": "node-a", "gpu": "NVIDIA H200", "cpu_count": 16, "cpu_model": "Intel(R) Xeon(R) Processor"}
H100 = {"host": "node-b", "gpu": "NVIDIA H100 80GB HBM3", "cpu_count": 32, "cpu_model": "AMD EPYC 9454"}


def on(path, gpu=None, gpu_models=None, **where):
    """The record at `path` as if it ran on another machine (`where`: provenance's host, cpu_count,
    cpu_model), with the GPU it ran on or, without one, the machine's GPUs."""
    rec = json.loads(path.read_text())
    rec["provenance"].update(where, gpu=gpu, **({} if gpu_models is None else {"gpu_models": gpu_models}))
    results.write_atomic(path, rec)
    return path


def test_a_record_copied_with_another_host_cpu_and_gpu_gets_a_row_a_panel_and_a_name_of_its_own(tmp_path):
    for name, m in (("a", H200), ("b", H100)):
        on(write(tmp_path, f"{name}-step", mode="step", reps=[100.0, 110.0]), **m)
        on(write(tmp_path, f"{name}-sendrecv", mode="sendrecv", reps=[150.0, 160.0]), **m)
    out = tmp_path / "out"
    c = collect([tmp_path], out_dir=out, plot=False)
    t = pd.read_csv(out / "table.csv")
    steps = t[t["mode"] == "step"]
    assert [len(json.loads(r)) for r in steps["reps"]] == [2, 2]  # not one row of 4 reps
    assert sorted(steps["group"]) == sorted([f"machine={machines.label(H100)}", f"machine={machines.label(H200)}"])
    assert "node-b (NVIDIA H100 80GB HBM3, 32 cores AMD EPYC 9454)" in c.markdown
    assert sorted(p.panel for p in panels.places(set(t["group"])).values()) == [  # a page panel each
        f"on {machines.label(H200)}", f"on {machines.label(H100)}"]
    speedups = t[t["mode"] == "sendrecv"]
    assert len(speedups) == 2  # each machine's sendrecv over its own step


def test_one_machine_adds_nothing_to_the_names(tmp_path):
    on(write(tmp_path, "s", mode="step", reps=[100.0]), **H200)
    on(write(tmp_path, "r", mode="sendrecv", reps=[150.0]), **H200)
    c = collect([tmp_path], plot=False)
    assert set(c.table["group"]) == {"all"}


def test_an_older_probe_without_its_gpu_stays_in_its_loops_row(tmp_path):
    """An emulator probe never initialises CUDA, and older records then named no GPU: it takes the GPU of
    the jobs of its host and hardware (one GPU among them), so the probe bounds its loop as before."""
    on(write(tmp_path, "loop", mode="step", reps=[100.0]), **H200)
    on(write(tmp_path, "probe", mode="env_only", reps=[300.0]), **{**H200, "gpu": None})
    on(write(tmp_path, "other", mode="step", n=16, reps=[100.0]), **H100)
    c = collect([tmp_path], plot=False)
    groups = dict(zip(c.table["mode"] + c.table["num_envs"].astype(str), c.table["group"]))
    assert groups["env_only8"] == groups["step8"] == f"machine={machines.label(H200)}"
    assert groups["step16"] == f"machine={machines.label(H100)}"


def test_a_part_is_filled_only_where_the_others_name_one_value():
    a, b = {**H200, "host": "vm"}, {**H100, "host": "vm", "cpu_count": 16, "cpu_model": H200["cpu_model"]}
    probe = {**a, "gpu": None}
    assert machines.fill([a, b, probe])[2]["gpu"] is None  # an H200 and an H100 on hosts named alike
    assert machines.fill([a, probe])[1]["gpu"] == "NVIDIA H200"
    old = {**a, "cpu_model": None}
    assert machines.fill([a, old])[1] == a
    assert machines.label(machines.fill([probe])[0]) == "vm (no GPU named, 16 cores Intel(R) Xeon(R) Processor)"


def test_the_machines_gpus_name_a_job_that_ran_on_the_cpu(tmp_path):
    on(write(tmp_path, "loop", mode="step", reps=[100.0]), **H200)
    on(write(tmp_path, "probe", mode="env_only", reps=[300.0]), **{**H200, "gpu": None},
       gpu_models=["NVIDIA H200", "NVIDIA H200"])
    c = collect([tmp_path], plot=False)
    assert set(c.table["group"]) == {"all"}


def test_learning_seeds_pool_across_hosts_of_one_hardware_marked_and_never_across_gpu_models(tmp_path):
    for seed, host in enumerate(("node-a", "node-c", "node-a")):
        on(learn(tmp_path, f"h200-{seed}", [0.0, 5.0, 10.0 + seed], seed=seed), **{**H200, "host": host})
    for seed in range(2):
        on(learn(tmp_path, f"h100-{seed}", [0.0, 5.0, 12.0], seed=seed), **H100)
    c = collect([tmp_path], plot=False)
    rows = {r.group: r for r in c.learning.itertuples()}
    h200 = rows[f"machine={machines.hardware(H200)}"]
    h100 = rows[f"machine={machines.hardware(H100)}"]
    assert (h200.seeds, h200.hosts, h100.seeds, h100.hosts) == (3, 2, 2, 1)
    assert "| 3, on 2 hosts |" in c.markdown and "| 2 |" in c.markdown
    t = c.table.set_index("group")  # the loop's env-steps/s: its seeds' hardware's
    assert set(t.index) == set(rows)


def test_a_single_learning_row_on_two_hosts_says_so_without_a_machine_name(tmp_path):
    for seed, host in enumerate(("node-a", "node-c")):
        on(learn(tmp_path, f"s{seed}", [0.0, 5.0, 10.0], seed=seed), **{**H200, "host": host})
    c = collect([tmp_path], plot=False)
    r = learning_row(c, "step")
    assert (r["seeds"], r["hosts"]) == (2, 2) and r["group"] == "all"
    assert "| 2, on 2 hosts |" in c.markdown


def test_backends_on_two_machines_are_never_paired(tmp_path):
    """Only node-b ran envpool: it is compared with node-b's ale alone, not with both machines' pooled."""
    for name, m, thr in (("a", H200, 50.0), ("b", H100, 100.0)):
        on(write(tmp_path, f"ale-{name}", mode="step", reps=[thr, thr]), **m)
    on(write(tmp_path, "envpool-b", mode="step", reps=[300.0, 300.0], env_extra={"backend": "envpool"}), **H100)
    c = collect([tmp_path], plot=False)
    b = c.backends
    assert len(b) == 1 and (b.iloc[0]["ale_mean"], b.iloc[0]["envpool_ratio"]) == pytest.approx((100.0, 3.0))


def test_a_record_names_its_machine_gpus_and_driver_as_the_driver_tells(tmp_path):
    root = tmp_path / "nvidia"
    for bus, model in (("0000:01:00.0", "NVIDIA H200"), ("0000:02:00.0", "NVIDIA H200")):
        (root / "gpus" / bus).mkdir(parents=True)
        (root / "gpus" / bus / "information").write_text(f"Model: \t\t {model}\nIRQ:   \t 42\n")
    (root / "version").write_text("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release "
                                  "Build  (dvs-builder@U16)\nGCC version:  gcc version 12.3.0\n")
    assert provenance.nvidia(root) == {"gpu_models": ["NVIDIA H200", "NVIDIA H200"], "gpu_driver": "570.86.15"}
    made = provenance.describe(gpu=False)
    assert {"host", "cpu_model", "cpu_count", "gpu_models", "gpu_driver"} <= set(made)
    assert made["cpu_count"] >= 1 and made["host"]
