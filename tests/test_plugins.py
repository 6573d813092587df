"""Plugins (config.plugins): named on the command line, in PPO_BENCH_PLUGINS or by an installed
package's entry point, loaded once a process, their algorithms' keys in the schema, a failure in one line."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from ppo_bench.config import plugins
from ppo_bench.config.keys import known_keys
from ppo_bench.config.schema import register_configs
from ppo_bench.registry import ALGOS


@pytest.fixture
def fresh(monkeypatch):
    """This process's plugins forgotten for the test (and its registrations undone after it)."""
    monkeypatch.setattr(plugins, "_loaded", {})
    monkeypatch.setattr(plugins, "_entry_points", None)
    monkeypatch.delenv(plugins.ENV, raising=False)
    before = {a.name for a in ALGOS}
    yield
    for name in {a.name for a in ALGOS} - before:
        ALGOS.remove(name)
    register_configs()


def plugin_file(folder, name: str, body: str = "") -> str:
    """A plugin module: registers the algorithm `name` (the toy bandit's class, a config of its own)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(textwrap.dedent(f"""
        from dataclasses import dataclass
        from ppo_bench.agent.algos.config import AlgoConfig
        from ppo_bench.registry import ALGOS, Algo

        @dataclass
        class Config(AlgoConfig):
            {name}_rate: float = 0.5

        ALGOS.add(Algo("{name}", "toy_algorithm:Toy", config="{name}:Config"))
    """) + textwrap.dedent(body))
    return str(folder / f"{name}.py")


@pytest.mark.parametrize("args, named", [
    (["plugins=[my_a2c,lib/toy.py]", "env.num_envs=8"], ["my_a2c", "lib/toy.py"]),
    (["-m", "plugins=my_a2c", "mode=step,sendrecv"], ["my_a2c"]),
    (["+plugins=[a]"], ["a"]),
    (["env.num_envs=8"], []),
    (["plugins=[unclosed"], []),  # Hydra says what is wrong with it, in its own words
])
def test_the_command_line_names_plugins_as_hydra_reads_its_overrides(args, named):
    assert plugins.named_on(args) == named


def test_a_plugin_by_path_registers_its_algorithm_and_its_keys_join_the_schema_once(tmp_path, fresh):
    path = plugin_file(tmp_path / "mine", "counted", """
        CALLS = []
        def register():
            CALLS.append(1)
    """)
    assert "agent.counted_rate" not in known_keys()
    assert plugins.load([path]) == [path]
    assert "counted" in ALGOS and "agent.counted_rate" in known_keys()
    assert plugins.load([path]) == []  # once a process: register() is not called again
    assert importlib.import_module("counted").CALLS == [1]
    assert plugins.loaded() == {path: "plugins="}


def test_the_environment_names_plugins_for_every_process_the_sweep_starts(tmp_path, fresh, monkeypatch):
    plugin_file(tmp_path, "from_env")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(plugins.ENV, "from_env, ")
    assert plugins.load() == ["from_env"] and "from_env" in ALGOS


def test_an_installed_package_s_entry_point_is_loaded_where_it_is_found(tmp_path, fresh, monkeypatch):
    """What pip writes for a package with `[project.entry-points."ppo_bench.plugins"]`: its dist-info's
    entry_points.txt, read by importlib.metadata from any folder on the path."""
    plugin_file(tmp_path, "installed_algo", """
        def register():
            ALGOS.add(Algo("installed_algo_too", "toy_algorithm:Toy", config="installed_algo:Config"))
    """)
    info = tmp_path / "installed_algo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: installed-algo\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{plugins.GROUP}]\ninstalled = installed_algo:register\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert plugins.load() == ["installed_algo:register"]
    assert {"installed_algo", "installed_algo_too"} <= set(ALGOS.names())
    assert plugins.loaded() == {"installed_algo:register": f"entry point installed ({plugins.GROUP})"}


@pytest.mark.parametrize("name, said", [
    ("no_such_plugin_module", "plugin no_such_plugin_module (plugins=): ModuleNotFoundError: "
                              "No module named 'no_such_plugin_module'"),
    ("missing/file.py", "plugin missing/file.py (plugins=): FileNotFoundError: no file "),
])
def test_a_plugin_that_cannot_be_loaded_is_one_line_naming_it(name, said, fresh):
    with pytest.raises(plugins.PluginError) as e:
        plugins.load([name])
    assert str(e.value).startswith(said) and "\n" not in str(e.value)


def test_a_plugin_whose_key_has_another_type_than_a_shared_one_is_refused_by_name(tmp_path, fresh):
    (tmp_path / "clash.py").write_text(textwrap.dedent("""
        from dataclasses import dataclass
        from ppo_bench.agent.algos.config import AlgoConfig
        from ppo_bench.registry import ALGOS, Algo

        @dataclass
        class Config(AlgoConfig):
            num_steps: str = "many"

        ALGOS.add(Algo("clash", "toy_algorithm:Toy", config="clash:Config"))
    """))
    with pytest.raises(plugins.PluginError, match=r"^plugins .*clash.py: agent.num_steps: agent.algo=clash's Config "
                                                 r"gives it the type <class 'str'>, agent.algo=reference's "):
        plugins.load([str(tmp_path / "clash.py")])
    ALGOS.remove("clash")


def test_run_py_says_a_plugin_it_cannot_load_in_one_line_before_hydra_starts(tmp_path):
    out = subprocess.run([sys.executable, "run.py", "plugins=[no_such_plugin_module]", f"hydra.run.dir={tmp_path}"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and not list(tmp_path.iterdir())
    assert out.stderr.splitlines() == ["plugin no_such_plugin_module (plugins=): ModuleNotFoundError: "
                                       "No module named 'no_such_plugin_module'"]


def committed_configs() -> list[dict]:
    """The config of every record committed under docs/results (folders and archives)."""
    import json
    import tarfile

    found = []
    for path in sorted((ROOT / "docs" / "results").rglob("*")):
        if path.name == "result.json":
            found.append(json.loads(path.read_text())["config"])
        elif path.name.endswith((".tar.gz", ".tgz", ".tar.xz")):
            with tarfile.open(path) as archive:
                found += [json.load(archive.extractfile(m))["config"] for m in archive.getmembers()
                          if m.name.endswith("result.json")]
    return found


def test_a_plugin_s_algorithm_changes_no_committed_record_s_identity(tmp_path, fresh):
    """An algorithm whose keys are new, and whose default for a key it shares with the package's own
    is another (5-step rollouts), leaves every committed record the job it was: resume skips it and the
    collector pools it as before."""
    from ppo_bench.record.identity import JobIdentity

    configs = committed_configs()
    assert len(configs) > 1000
    before = [JobIdentity.of(c).key for c in configs]
    (tmp_path / "shorter_rollouts.py").write_text(textwrap.dedent("""
        from dataclasses import dataclass
        from ppo_bench.agent.algos.config import RolloutConfig
        from ppo_bench.registry import ALGOS, Algo

        @dataclass
        class Config(RolloutConfig):
            num_steps: int = 5
            ent_coef: float = 0.05
            value_bootstrap: bool = True

        ALGOS.add(Algo("shorter", "toy_algorithm:Toy", config="shorter_rollouts:Config", learns=True))
    """))
    plugins.load([str(tmp_path / "shorter_rollouts.py")])
    assert "agent.value_bootstrap" in known_keys()
    assert [JobIdentity.of(c).key for c in configs] == before
