"""README.md's two commands, as a user pastes them.

The first picks torch's build by the machine: where `nvidia-smi` is on the PATH, torch from PyPI (on
Linux the CUDA build); elsewhere from PyTorch's CPU index, so a CPU machine downloads no CUDA wheels.
Its line is run as it stands in the README, by bash and by POSIX sh (and zsh where there is one), in an
empty folder whose PATH holds stand-ins for python and pip that record what they are asked, with and
without a stand-in `nvidia-smi`: the shell's part is real, the installs are not. The second is the
one .ci/run runs, so CI tests what the README says.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CPU_INDEX = "--index-url=https://download.pytorch.org/whl/cpu"

RECORDER = f"""#!{sys.executable}
import os, pathlib, sys
name = pathlib.Path(sys.argv[0]).name
with open(os.environ["CALLS"], "a") as f:
    f.write(" ".join([name] + sys.argv[1:]) + "\\n")
if sys.argv[1:] == ["-m", "venv", ".venv"]:
    pathlib.Path(".venv/bin").mkdir(parents=True)
    pathlib.Path(".venv/bin/activate").write_text("# a stand-in: PATH stays as it is\\n")
"""


def readme_commands() -> list[str]:
    """The README's code lines that make a .venv, in order."""
    return re.findall(r"^    (python -m venv .venv .*)$", (ROOT / "README.md").read_text(), re.M)


def run_line(line: str, shell: str, tmp_path: Path, gpu: bool) -> list[str]:
    stand_ins = tmp_path / "bin"
    stand_ins.mkdir()
    for name in ("python", "pip"):
        (stand_ins / name).write_text(RECORDER)
        (stand_ins / name).chmod(0o755)
    path = [str(stand_ins)]
    if gpu:
        (tmp_path / "gpu").mkdir()
        (tmp_path / "gpu" / "nvidia-smi").write_text("#!/bin/sh\nexit 0\n")
        (tmp_path / "gpu" / "nvidia-smi").chmod(0o755)
        path.append(str(tmp_path / "gpu"))
    work = tmp_path / "clone"
    work.mkdir()
    calls = tmp_path / "calls"
    out = subprocess.run([shell, "-c", line], cwd=work, capture_output=True, text=True, timeout=60,
                         env={"PATH": os.pathsep.join(path), "CALLS": str(calls), "HOME": str(tmp_path)})
    assert out.returncode == 0, f"{shell} -c {line!r}: {out.returncode}\n{out.stdout}{out.stderr}"
    return calls.read_text().splitlines()


SHELLS = [s for s in ("bash", "sh", "zsh") if shutil.which(s)]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("gpu", [False, True], ids=["no nvidia-smi", "nvidia-smi"])
def test_the_first_command_installs_the_torch_build_the_machine_can_use(shell, gpu, tmp_path):
    shell = shutil.which(shell)
    calls = run_line(readme_commands()[0], shell, tmp_path, gpu)
    torch = "pip install torch==2.13.0" + ("" if gpu else f" {CPU_INDEX}")
    assert calls == ["python -m venv .venv", torch, "pip install -e .[plot]", "python run.py -m +preset=quick"]


def test_the_shells_are_there():
    assert {"bash", "sh"} <= set(SHELLS), SHELLS


def test_the_second_command_is_the_one_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    assert readme_commands()[1] == 'python -m venv .venv && . .venv/bin/activate && ' \
        'pip install torch==2.13.0 -e ".[test]" && python -m pytest'
    assert '\npip install torch==2.13.0 -e ".[test]"\npython -m pytest\n' in ci
