"""The collector as a package: one module per section, layered; its entry points; installed by a normal install."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

import ppo_bench.collect
from conftest import ROOT
from ppo_bench.collect import cli
from ppo_bench.registry import BACKENDS, MODES, RUNTIMES
from test_collect import write

PACKAGE = ROOT / "ppo_bench" / "collect"
STEPS = ["sources", "machines", "load", "common", "measured", "probe_limit", "bound_per_design", "interleaved", "throughput",
         "side_by_side", "phases", "startup", "equal_steps", "learning", "integrity", "baseline", "palette", "panels", "view",
         "chart", "curves", "headline", "about", "figures", "html", "report", "cli"]  # each may import only those before it


def _relative_imports(path) -> set[str]:
    """The sibling modules a module imports (`from .x import ...`; `from . import x` counts as x)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found |= {node.module} if node.module else {a.name for a in node.names}
    return found


def test_the_package_holds_the_steps_and_its_entry_points():
    assert {p.stem for p in PACKAGE.glob("*.py")} == {"__init__", "__main__", *STEPS}
    assert not (ROOT / "ppo_bench" / "collect.py").exists()


@pytest.mark.parametrize("step", STEPS)
def test_each_step_imports_only_the_steps_before_it(step):
    assert _relative_imports(PACKAGE / f"{step}.py") <= set(STEPS[:STEPS.index(step)])


@pytest.mark.parametrize("step", STEPS)
def test_no_private_name_crosses_modules(step):
    """A section uses another's public names only (`from .x import _y` or `x._y` would tie it to internals)."""
    tree = ast.parse((PACKAGE / f"{step}.py").read_text())
    siblings = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1
                and not n.module for a in n.names}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            assert not [a.name for a in node.names if a.name.startswith("_")], ast.unparse(node)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in siblings:
            assert not node.attr.startswith("_"), ast.unparse(node)


def test_no_mode_backend_or_runtime_is_named_in_the_collector():
    """The names and their order come from the registry: adding a mode or a backend touches no collector code."""
    names = {*MODES.names(), *BACKENDS.names(), *RUNTIMES.names()}
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        docstrings = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(
            n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr)}
        found = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and id(n) not in docstrings and (n.value in names or n.value.split("[")[0] in names)}
        assert not found, f"{path.name}: {sorted(found)}"


def test_the_public_names_and_the_console_script():
    tomllib = pytest.importorskip("tomllib")
    assert sorted(ppo_bench.collect.__all__) == ["CollectError", "Collection", "collect", "main"]
    assert all(getattr(ppo_bench.collect, name) is not None for name in ppo_bench.collect.__all__)
    assert (ppo_bench.collect.collect, ppo_bench.collect.main) == (cli.collect, cli.main)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    module, name = project["scripts"]["ppo-bench-collect"].split(":")
    assert (module, name) == ("ppo_bench.collect", "main")


def test_every_package_is_found_for_a_normal_install():
    """setuptools installs only the packages its find rule names: a subpackage it missed works editable,
    not installed."""
    tomllib = pytest.importorskip("tomllib")
    from setuptools import find_namespace_packages

    rule = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    installed = set(find_namespace_packages(where=str(ROOT), include=rule["include"]))
    found = {".".join(p.parent.relative_to(ROOT).parts) for top in ("ppo_bench", "hydra_plugins")
             for p in (ROOT / top).rglob("__init__.py")}  # hydra_plugins: a namespace package, Hydra's
    assert found and found <= installed, sorted(found - installed)
    assert not {p for p in installed if p.split(".")[0] not in ("ppo_bench", "hydra_plugins")}


def test_python_dash_m_runs_the_command_line(tmp_path):
    write(tmp_path, "s", mode="step", reps=[100.0, 101.0])
    run = subprocess.run([sys.executable, "-m", "ppo_bench.collect", str(tmp_path), "--no-plot"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "| num_envs | step |" in run.stdout and run.stderr == f"wrote {tmp_path / 'summary'}\n"
    assert {p.name for p in (tmp_path / "summary").iterdir()} == {"table.csv", "table.md", "chart.json", "chart.js",
                                                                  ".collect.json"}
    usage = subprocess.run([sys.executable, "-m", "ppo_bench.collect", "--help"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert usage.returncode == 0 and usage.stdout.startswith("usage: ppo-bench-collect")
    assert "Collect result files into tables, chart arrays and a plot." in usage.stdout
