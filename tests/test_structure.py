"""The package's shape: no import circle, the agent and the loop's clocks know no emulator, no module
over 400 lines, and each backend, runtime, mode and algorithm name written in its registry only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ppo_bench.registry import AXES

PACKAGE = Path(__file__).resolve().parents[1] / "ppo_bench"
MODULES = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p
           for p in PACKAGE.rglob("*.py")}


def imports(name: str) -> set[str]:
    """The ppo_bench modules a module imports at its top level or inside functions."""
    path, found = MODULES[name], set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            # `from . import x` names modules; `from .m import x` names m (or m.x where x is a module)
            targets = [f"{base}.{a.name}" for a in node.names] + ([base] if node.module else [])
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        # a module's own package is imported before it anyway: not an edge
        found |= {t for t in targets if t in MODULES and t != name and not name.startswith(t + ".")}
    return found


def test_there_is_no_import_circle():
    graph = {m: imports(m) for m in MODULES}

    def visit(m: str, path: list[str]) -> None:
        for n in graph[m]:
            if n in path:
                pytest.fail("import circle: " + " -> ".join(path[path.index(n):] + [n]))
            visit(n, path + [n])

    for m in graph:
        visit(m, [m])


def reachable(name: str) -> set[str]:
    seen, todo = set(), [name]
    while todo:
        for n in imports(todo.pop()) - seen:
            seen.add(n)
            todo.append(n)
    return seen


@pytest.mark.parametrize("module", ["ppo_bench.agent.make", "ppo_bench.agent.networks", "ppo_bench.agent.runtimes",
                                    "ppo_bench.agent.algos.reference", "ppo_bench.agent.algos.ppo", "ppo_bench.loop.phases"])
def test_the_agent_and_the_phase_clocks_import_nothing_from_the_env_side(module):
    env_side = {"ppo_bench.env.backends", "ppo_bench.env.torch_envs", "ppo_bench.loop.drivers"}
    assert not reachable(module) & env_side, f"{module} reaches {sorted(reachable(module) & env_side)}"
    assert imports("ppo_bench.registry") == set(), "the registry names its classes by path, importing none"


def test_no_module_is_over_400_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > 400}
    assert not long, long


ALLOWED = {
    ("ppo_bench.loop.phases", "step"): "the vector env's method, not the mode",
    ("ppo_bench.job.child", "compiled"): "a field of the record's inference object",
    ("ppo_bench.env.backends", "gymnasium"): "envpool's env_type argument",
}


def test_each_name_is_written_in_its_registry_only():
    names = {e.name for registry in AXES for e in registry}
    found = []
    for module, path in MODULES.items():
        if module == "ppo_bench.registry":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in names and (module, node.value) not in ALLOWED:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value!r}")
    assert not found, "\n".join(found)
