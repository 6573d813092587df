"""Test-only fault injection, loaded by every Python process started with this folder on PYTHONPATH.

    PPO_BENCH_FAULT="module:Owner.attr:n:action[;...]"

patches `Owner.attr` (a method, or a module function when Owner is left out) so
that its n-th and later calls, counted in that process, do `action`:

    raise        raise RuntimeError("injected fault in Owner.attr")
    hang         never return, with SIGINT and SIGTERM blocked (as a recv stuck in C++)
    kill         die of SIGKILL (as by the OOM killer)
    sigint       send this process SIGINT (as Ctrl-C), then call it as usual if that did not stop it
    return=JSON  return the JSON value instead of calling it
    hold=R,W     write a byte to file descriptor W (the moment has come), read one from R (or its end: the
                 test has acted), then call it as usual: a test acts at a moment of the run, not after a delay
    repeat-env   (a vector env's recv) at the n-th call only, the batch's info["env_id"] holds its
                 first env twice: ale-py 0.12.1's fault on a CPU-starved machine

The patch is applied when `module` is first imported, not here: at this point
sys.path does not yet hold the script's folder (nor, in a spawned child, the
parent's path), and an eager import could load another checkout's ppo_bench.

The tests set it for the job's child process (or a whole sweep), so no fault
hooks live in the production code.
"""

import os
import sys

_PENDING: dict = {}


def _patch(module, path: str, nth: str, action: str) -> None:
    import json
    import signal
    import threading

    *parents, name = path.split(".")
    owner = module
    for part in parents:
        owner = getattr(owner, part)
    original = getattr(owner, name)
    calls = [0]

    def faulty(*args, **kwargs):
        calls[0] += 1
        if action == "repeat-env":  # the nth call only: its batch holds its first env twice
            out = original(*args, **kwargs)
            if calls[0] == int(nth):
                ids = out[-1]["env_id"] = out[-1]["env_id"].copy()
                ids[-1] = ids[0]
            return out
        if calls[0] < int(nth):
            return original(*args, **kwargs)
        if action == "raise":
            raise RuntimeError(f"injected fault in {path}")
        if action == "hang":
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
            threading.Event().wait()
        if action == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if action == "sigint":  # delivered before kill() returns: its handler runs right here
            os.kill(os.getpid(), signal.SIGINT)
            return original(*args, **kwargs)
        if action.startswith("hold="):
            go, reached = (int(fd) for fd in action[len("hold="):].split(","))
            os.write(reached, b".")
            os.read(go, 1)
            return original(*args, **kwargs)
        if action.startswith("return="):
            return json.loads(action[len("return="):])
        raise ValueError(f"PPO_BENCH_FAULT: unknown action {action!r}")

    setattr(owner, name, faulty)


class _PatchOnImport:
    """A meta path finder that lets the real finders load a pending module, then patches it."""

    def find_spec(self, name, path=None, target=None):
        if name not in _PENDING:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        exec_module = spec.loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            for fault in _PENDING.pop(name, []):
                _patch(module, *fault)

        spec.loader.exec_module = exec_and_patch
        return spec


_SPEC = os.environ.get("PPO_BENCH_FAULT")
if _SPEC:
    for _fault in _SPEC.split(";"):
        _module, *_rest = _fault.split(":", 3)
        if _module in sys.modules:
            _patch(sys.modules[_module], *_rest)
        else:
            _PENDING.setdefault(_module, []).append(_rest)
    sys.meta_path.insert(0, _PatchOnImport())
