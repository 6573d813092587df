"""The package's shape: no import circle, the agent and the loop's clocks know no emulator, no module
over 400 lines, each backend, runtime, mode and algorithm name written in its registry only, no
module patching another's objects, and no block of code written twice.

Modules are found by what they are (the files under ppo_bench/, the agent's sub-package, the module
that defines the phase clock), so the tests follow a module that moves."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import defaultdict
from pathlib import Path

import pytest

from ppo_bench.registry import AXES

PACKAGE = Path(__file__).resolve().parents[1] / "ppo_bench"
MODULES = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p
           for p in sorted(PACKAGE.rglob("*.py"))}
TREES = {m: ast.parse(p.read_text()) for m, p in MODULES.items()}


def where(module: str, node: ast.AST) -> str:
    return f"{MODULES[module].relative_to(PACKAGE.parent)}:{node.lineno}"


def absolute(module: str, node: ast.ImportFrom) -> str:
    """The module an ImportFrom imports from, relative levels resolved against `module`."""
    if not node.level:
        return node.module or ""
    package = module if module in MODULES and MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    parent = package.split(".")[:len(package.split(".")) - node.level + 1]
    return ".".join(parent + ([node.module] if node.module else []))


def imports(name: str, tree: ast.AST | None = None) -> set[str]:
    """The ppo_bench modules a module imports at its top level or inside functions (`tree`: its source
    parsed, where not the file's)."""
    found = set()
    for node in ast.walk(TREES[name] if tree is None else tree):
        if isinstance(node, ast.ImportFrom):
            base = absolute(name, node)
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


def layer_order() -> list[str]:
    """The layers, highest first, as docs/code-map.md says them."""
    text = (PACKAGE.parent / "docs" / "code-map.md").read_text()
    said = re.search(r"The layers, highest first: (.+?)\.\s", text, re.S)
    assert said, "docs/code-map.md does not say the layers' order"
    return re.findall(r"`(\w+)`", said.group(1))


def upward(graph: dict[str, set[str]]) -> list[str]:
    """The imports from a layer to a higher one (a sub-package of ppo_bench is a layer; a module beside
    them, such as the registry, is imported by any and imports none)."""
    order = layer_order()
    layer = lambda m: m.split(".")[1] if m.count(".") and m.split(".")[1] in order else None  # noqa: E731
    bad = []
    for module, targets in graph.items():
        for target in sorted(targets):
            if layer(module) is None and module != "ppo_bench" and layer(target) is not None:
                bad.append(f"{module} (beside the layers) -> {target}")
            elif layer(module) and layer(target) and order.index(layer(target)) < order.index(layer(module)):
                bad.append(f"{module} ({layer(module)}) -> {target} ({layer(target)}, higher)")
    return bad


def test_the_code_map_orders_every_layer():
    packages = {m.split(".")[1] for m, p in MODULES.items() if m.count(".") == 1 and p.name == "__init__.py"}
    assert sorted(layer_order()) == sorted(packages)


def test_every_import_points_down_the_layers():
    assert upward({m: imports(m) for m in MODULES}) == []


@pytest.mark.parametrize("module, line", [("ppo_bench.config.schema", "from ppo_bench.launch import cli"),
                                          ("ppo_bench.env.backends", "from ppo_bench.job.parent import run"),
                                          ("ppo_bench.registry", "import ppo_bench.record.parts")])
def test_the_layer_rule_rejects_a_planted_upward_import(module, line):
    planted = {m: imports(m) for m in MODULES}
    planted[module] = imports(module, ast.parse(MODULES[module].read_text() + "\n" + line + "\n"))
    assert [b for b in upward(planted) if b.startswith(module)] != []


def reachable(name: str) -> set[str]:
    seen, todo = set(), [name]
    while todo:
        for n in imports(todo.pop()) - seen:
            seen.add(n)
            todo.append(n)
    return seen


def defining(name: str) -> list[str]:
    """The modules whose top level defines the function or class `name`."""
    return [m for m, tree in TREES.items() if any(getattr(n, "name", None) == name for n in tree.body)]


def in_package(package: str) -> list[str]:
    return [m for m in MODULES if m == package or m.startswith(package + ".")]


AGENT_SIDE = in_package("ppo_bench.agent") + defining("PhaseClock")
EMULATORS = {"ale_py", "envpool", "gymnasium"}


@pytest.mark.parametrize("module", AGENT_SIDE)
def test_the_agent_and_the_phase_clocks_know_no_emulator(module):
    """Neither the agent nor the phase clocks reach the env sub-package (the adapters, the torch
    side of the envs; the drivers, which import them, with it) or import an emulator library."""
    env_side = reachable(module) & set(in_package("ppo_bench.env"))
    assert not env_side, f"{module} reaches {sorted(env_side)}"
    libraries = {a.name.split(".")[0] for n in ast.walk(TREES[module]) if isinstance(n, ast.Import) for a in n.names}
    libraries |= {(n.module or "").split(".")[0] for n in ast.walk(TREES[module])
                  if isinstance(n, ast.ImportFrom) and not n.level}
    assert not libraries & EMULATORS, f"{module} imports {sorted(libraries & EMULATORS)}"


def test_the_phase_clock_is_found_where_the_loop_is():
    assert [m.rpartition(".")[0] for m in defining("PhaseClock")] == ["ppo_bench.loop"]


def test_the_registry_imports_no_module_of_the_package():
    assert imports("ppo_bench.registry") == set(), "the registry names its classes by path, importing none"


def test_no_module_is_over_400_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > 400}
    assert not long, long


def top_level_names(tree: ast.Module) -> dict[ast.AST, str]:
    """Each node under a top-level def, class or assignment, with that statement's name."""
    named = {}
    for statement in tree.body:
        name = getattr(statement, "name", None)
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            name = ",".join(ast.unparse(t) for t in targets)
        for node in ast.walk(statement):
            named[node] = name
    return named


# (name, the top-level def, class or assignment it stands in) -> why it is not the registry's name
ALLOWED_NAMES = {
    ("step", "PHASES"): "the vector env's method, not the mode",
    ("compiled", "_inference"): "a field of the record's inference object",
    ("gymnasium", "EnvpoolVectorEnv"): "envpool's env_type argument",
}


def test_each_name_is_written_in_its_registry_only():
    names = {e.name for registry in AXES for e in registry}
    found = []
    for module, tree in TREES.items():
        if module == "ppo_bench.registry":
            continue
        named = top_level_names(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and node.value in names
                    and (node.value, named.get(node)) not in ALLOWED_NAMES):
                found.append(f"{where(module, node)}: {node.value!r} (in {named.get(node)})")
    assert not found, "\n".join(found)


def classes_named_twice(trees: dict[str, ast.Module]) -> list[str]:
    """Each class name that two modules define, with the modules."""
    by_name: dict[str, list[str]] = {}
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                by_name.setdefault(node.name, []).append(module)
    return [f"{name}: {', '.join(modules)}" for name, modules in sorted(by_name.items()) if len(modules) > 1]


def test_no_two_classes_of_the_package_share_a_name():
    """A name says one thing: two classes called Learning (the loop's run and the record's part) read
    as one in a traceback, a docstring or an import."""
    assert not classes_named_twice(TREES), classes_named_twice(TREES)
    planted = {"a": ast.parse("class Outcome:\n    pass\n"), "b": ast.parse("def f():\n    class Outcome: ...\n")}
    assert classes_named_twice(planted) == ["Outcome: a, b"]


# Monkey-patching. -----------------------------------------------------------------------------

# the attribute store, as written -> why it is not patching
ALLOWED_STORES = {
    "torch.backends.cudnn.benchmark": "torch's documented switch for cuDNN's autotuner, which has no other API",
    "os.environ": "the process's environment, which os offers as a mapping to write (for the job's children)",
    "sys.unraisablehook": "Python's documented hook for an exception it cannot raise (in a finalizer), set to be replaced",
}


def store_targets(node: ast.AST) -> list[ast.expr]:
    """The expressions an assignment, augmented assignment or del writes to, tuples unpacked."""
    if isinstance(node, (ast.Assign, ast.Delete)):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        targets = [node.target]
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        targets = [node.optional_vars]
    else:
        return []
    flat = []
    while targets:
        t = targets.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            targets.extend(t.elts)
        else:
            flat.append(t.value if isinstance(t, ast.Starred) else t)
    return flat


def root(expr: ast.expr) -> ast.expr:
    """`a` of `a.b[0].c()`: the name an attribute chain starts from (or what stands there instead)."""
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr


def bindings(module: str, tree: ast.Module, trees: dict[str, ast.Module]) -> tuple[dict[str, str], set[str]]:
    """What a module's imported names are bound to ({name: 'library', 'ppo_bench module', 'ppo_bench
    def' (a function or class another module defines at its top level) or 'ppo_bench object'}; a
    loop variable over a literal tuple or list holding a library's name, and a parameter annotated
    ModuleType, count as 'library'), and the names its defs bind. `trees`: the package's modules."""
    bound, functions = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                inside = a.name == "ppo_bench" or a.name.startswith("ppo_bench.")
                bound[a.asname or a.name.split(".")[0]] = "ppo_bench module" if inside else "library"
        elif isinstance(node, ast.ImportFrom):
            base = absolute(module, node)
            for a in node.names:
                if not (base == "ppo_bench" or base.startswith("ppo_bench.")):
                    kind = "library"
                elif f"{base}.{a.name}" in trees:
                    kind = "ppo_bench module"
                elif base in trees and any(getattr(n, "name", None) == a.name for n in trees[base].body):
                    kind = "ppo_bench def"  # a function or class
                else:
                    kind = "ppo_bench object"
                bound[a.asname or a.name] = kind
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.add(node.name)
            for a in node.args.args + node.args.kwonlyargs + [node.args.vararg, node.args.kwarg]:
                if a is not None and a.annotation is not None and "ModuleType" in ast.unparse(a.annotation):
                    bound[a.arg] = "library"
    for node in ast.walk(tree):
        if (isinstance(node, ast.For) and isinstance(node.target, ast.Name)
                and isinstance(node.iter, (ast.Tuple, ast.List))):
            starts = [root(e.value if isinstance(e, ast.Starred) else e) for e in node.iter.elts]
            if any(isinstance(e, ast.Name) and bound.get(e.id) == "library" for e in starts):
                bound[node.target.id] = "library"
    return bound, functions


def patches(module: str, tree: ast.Module, label: str, trees: dict[str, ast.Module] = TREES) -> list[str]:
    """Each attribute store in a module that changes an object it does not own.

    An attribute store is `X.a = v` (also augmented, annotated, in a tuple, `del X.a`, and
    `setattr(X, ...)`, `delattr(X, ...)`, `object.__setattr__(X, ...)`), or a store into an
    attribute (`X._a[k] = v`). Stores whose X starts from `self` or `cls` are a class's own and pass.
    Any other is a patch when:

    1. X starts from a name bound by importing from outside ppo_bench (`torch.x.y = ...`,
       `hydra_utils.run_job = ...`; a loop variable over a literal tuple of such names, and a
       parameter annotated ModuleType, count as imported): a library's object changed;
    2. X is a ppo_bench module itself (`sweep.NAME = ...`): another module's global rebound; a store
       deeper inside an object such a module offers (`sweep.OUTCOME.failed_jobs += 1`) passes;
    3. X is a function or class that another ppo_bench module defines, or a function defined by a
       def (`wrapper.flag = True`): a function carries no attributes of ours;
    4. the value is a call that takes `X.a` itself (`driver.step = counting(driver.step)`): a
       method or function replaced by a wrapper, on whatever object;
    5. `a` is private (`ret._value = ...`, `x._cache[k] = v`): another class's inside;
    6. it is a setattr, delattr or __setattr__ call: an attribute named at run time.

    Static analysis only approximates: an object handed in from elsewhere and changed through a
    public attribute (a collection's context filled section by section) passes, and so does a
    rule's false alarm listed in ALLOWED_STORES with its reason.
    """
    bound, functions = bindings(module, tree, trees)
    found = []

    def check(node: ast.AST, target: ast.expr, value: ast.expr | None) -> None:
        base = target.value if isinstance(target, ast.Subscript) else target
        if not isinstance(base, ast.Attribute):
            return
        start = root(base.value)
        if isinstance(start, ast.Name) and start.id in ("self", "cls"):
            return
        written = ast.unparse(base)
        if written in ALLOWED_STORES:
            return
        kind = bound.get(start.id) if isinstance(start, ast.Name) else None
        on_start = isinstance(base.value, ast.Name)
        whys = []
        if kind == "library":
            whys.append("a library's object")
        if on_start and kind == "ppo_bench module" and base is target:
            whys.append("another module's global")
        if on_start and (kind == "ppo_bench def" or start.id in functions):
            whys.append("an attribute of a function or class")
        if isinstance(value, ast.Call) and any(ast.unparse(a) == written for a in
                                               value.args + [k.value for k in value.keywords]):
            whys.append("a function replaced by its wrapper")
        if base.attr.startswith("_"):
            whys.append("a private attribute")
        if whys:
            found.append((node.lineno, f"{label}:{node.lineno}: {written}: {', '.join(whys)}"))

    for node in ast.walk(tree):
        value = getattr(node, "value", None)
        for target in store_targets(node):
            check(node, target, value if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) else None)
        if isinstance(node, ast.Call) and node.args:
            name = ast.unparse(node.func)
            if name in ("setattr", "delattr", "object.__setattr__", "object.__delattr__"):
                start = root(node.args[0])
                if not (isinstance(start, ast.Name) and start.id in ("self", "cls")):
                    found.append((node.lineno, f"{label}:{node.lineno}: {ast.unparse(node)[:80]}: "
                                               "an attribute named at run time"))
    return [line for _, line in sorted(found)]


def test_no_module_patches_another_s_objects():
    """No assignment onto attributes of objects the module does not own (the rule: `patches`)."""
    found = [line for module, path in MODULES.items()
             for line in patches(module, TREES[module], str(path.relative_to(PACKAGE.parent)))]
    assert not found, "\n".join(found)


PATCHING = '''
import os
import torch
from hydra.core import utils as hydra_utils
from ppo_bench.example import sweep
from ppo_bench.example.sweep import note_job, OUTCOME


def guard(driver, ret, more):
    hydra_utils.run_job = wrap(hydra_utils.run_job)          # 10: a library's function replaced
    for module in (hydra_utils, *more):
        module.run_job = wrap(module.run_job)                # 12: the same through a loop
    torch.backends.cuda.matmul.allow_tf32 = True             # 13: a library's object changed
    sweep.JOB_NOTES = "x"                                    # 14: another module's global
    note_job.calls = 0                                       # 15: another module's function
    driver.step = counting(driver.step)                      # 16: a method replaced by a wrapper
    ret.status, ret._return_value = 1, None                  # 17: a private attribute
    ret._cache["k"] = 1                                      # 18: into a private attribute
    setattr(driver, "step", None)                            # 19: named at run time

    def inner():
        pass
    inner.guarded = True                                     # 23: a function's attribute
    sweep.OUTCOME.failed_jobs += 1                           # passes: a counter sweep offers
    OUTCOME.failed_jobs += 1                                 # passes: the same
    driver.env_steps = 0                                     # passes: a public field
    os.environ["X"] = "1"                                    # passes: ALLOWED_STORES
    self._x = 1                                              # passes: its own
    setattr(self, "y", 2)                                    # passes: its own
'''


def test_the_patch_rule_finds_each_kind_and_passes_the_rest():
    sweep = ast.parse("OUTCOME = Outcome()\n\ndef note_job():\n    pass\n")
    found = patches("ppo_bench.example.cli", ast.parse(PATCHING), "example.py", {"ppo_bench.example.sweep": sweep})
    lines = [int(line.split(":")[1]) for line in found]
    assert lines == [10, 12, 13, 14, 15, 16, 17, 18, 19, 23], "\n".join(found)
    assert "example.py:10: hydra_utils.run_job: a library's object, a function replaced by its wrapper" in found
    assert "example.py:17: ret._return_value: a private attribute" in found


# Blocks written twice. -------------------------------------------------------------------------

BLOCK = 6


def code_lines(path: Path) -> list[tuple[int, str]]:
    """A module's lines as (line number, text) the way the duplicate test compares them.

    Each line is stripped of its comment and of the whitespace around it. Dropped: blank lines,
    comment lines, docstrings (a module's, class's or function's first string), import statements
    (two modules may well import the same names), and lines with no letter or digit (a lone `)` or
    `],` closes what the lines before opened and says nothing of its own)."""
    text = path.read_text()
    tree = ast.parse(text)
    dropped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            dropped |= set(range(node.lineno, node.end_lineno + 1))
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(getattr(first.value, "value", None), str):
                dropped |= set(range(first.lineno, first.end_lineno + 1))
    lines = text.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    return [(n, line.strip()) for n, line in enumerate(lines, 1)
            if n not in dropped and re.search(r"[A-Za-z0-9]", line)]


def duplicates(files: dict[str, Path], block: int = BLOCK) -> list[str]:
    """Each run of `block` or more normalised lines (`code_lines`) that stands twice, in one module
    or two, as 'a.py:10-17 and b.py:40-47 (6 lines): first line'. Runs that overlap themselves in
    one file (a line repeated over and over) are not counted."""
    lines = {name: code_lines(path) for name, path in files.items()}
    seen: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for name, numbered in lines.items():
        texts = [t for _, t in numbered]
        for i in range(len(texts) - block + 1):
            seen[tuple(texts[i:i + block])].append((name, i))
    pairs = set()
    for places in seen.values():
        for j, (a, i) in enumerate(places):
            for b, k in places[j + 1:]:
                if a != b or abs(i - k) >= block:
                    pairs.add((a, i, b, k))
    found = []
    for a, i, b, k in sorted(pairs):
        if (a, i - 1, b, k - 1) in pairs:
            continue  # the same run, found from its first window
        end = 0
        while (a, i + end + 1, b, k + end + 1) in pairs:
            end += 1
        first, second = lines[a], lines[b]
        found.append(f"{a}:{first[i][0]}-{first[i + end + block - 1][0]} and "
                     f"{b}:{second[k][0]}-{second[k + end + block - 1][0]} ({end + block} lines): {first[i][1]}")
    return found


def test_no_block_of_six_lines_is_written_twice():
    files = {str(p.relative_to(PACKAGE.parent)): p for p in MODULES.values()}
    found = duplicates(files)
    assert not found, "\n".join(found)


def test_the_duplicate_rule_finds_a_block_in_two_modules_past_comments_docstrings_imports(tmp_path):
    block = ["total = 0", "for x in xs:", "    total += x", "    if total > 9:", "        break", "print(total)"]
    first = ["import os", "def f(xs):", '    """Sums."""', *("    " + line for line in block), "    return 1"]
    second = ["import sys", "", "def g(xs):", '    """Adds up, said otherwise."""', "    # the same six lines",
              *("    " + line + "  # noted" for line in block[:3]), "", "        from os import sep",
              *("    " + line for line in block[3:]), "    return 2"]
    (tmp_path / "a.py").write_text("\n".join(first) + "\n")
    (tmp_path / "b.py").write_text("\n".join(second) + "\n")
    found = duplicates({"a.py": tmp_path / "a.py", "b.py": tmp_path / "b.py"})
    assert found == ["a.py:4-9 and b.py:6-13 (6 lines): total = 0"]
    assert duplicates({"a.py": tmp_path / "a.py"}) == []
    (tmp_path / "b.py").write_text("\n".join(["def h(ys):", *("    " + line for line in block[:5])]) + "\n")
    assert duplicates({"a.py": tmp_path / "a.py", "b.py": tmp_path / "b.py"}) == [], "five lines are not a block"


def test_the_code_map_names_every_module():
    """docs/code-map.md names each module of the package (by its path under ppo_bench/, or in its
    sub-package's table by its name in backticks), so that a module added or moved is mapped too."""
    text = (PACKAGE.parent / "docs" / "code-map.md").read_text()
    named = set(re.findall(r"`([^`]+)`", text))
    missing = []
    for path in MODULES.values():
        if path.name in ("__init__.py", "__main__.py"):
            continue
        inside = path.relative_to(PACKAGE).as_posix()
        if inside not in text and not {path.name, path.stem} & named:
            missing.append(inside)
    assert not missing, f"not in docs/code-map.md: {missing}"
