"""Can a fork server import inductor's compile path and still fork children that use CUDA?

    python bench/fork_inductor_probe.py [--nvml]

A job's child is forked from a server that imported `ppo_bench.job.child` (torch, dynamo); its
compiled policy's first call then imports inductor (about 1.5 s of a later job's first step). Once
importing inductor in the server left no forked child able to use CUDA. This process records every
call into CUDA's runtime that torch's Python makes while it imports inductor's compile path (the
device count, the lazy init), with the import that made it, then forks a child that moves a tensor
to the GPU and runs a compiled function. `--nvml` sets PYTORCH_NVML_BASED_CUDA_CHECK=1 first, which
makes torch.cuda.is_available() ask NVML instead of initialising the driver. `--keys` also
computes, before the fork, the hashes a sweep's fork server computes there (`job/sweep_preload.py`,
`runtimes.hash_compile_keys`), and the child says whether its compile still hashed torch's
sources. Prints one JSON line.

    python bench/fork_inductor_probe.py --nvml --keys
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

if "--nvml" in sys.argv:
    os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"

t0 = time.perf_counter()
import torch  # noqa: E402
import torch._dynamo  # noqa: E402,F401
import torch.cuda  # noqa: E402

out: dict = {"nvml": "--nvml" in sys.argv, "import_torch_dynamo_s": round(time.perf_counter() - t0, 3), "calls": []}


def watch(owner, name: str) -> None:
    real = getattr(owner, name)

    def wrapped(*a, **k):
        stack = [f"{f.filename.rsplit('site-packages/', 1)[-1]}:{f.lineno}:{f.name}"
                 for f in traceback.extract_stack()[:-1] if "importlib" not in f.filename][-6:]
        out["calls"].append({"call": name, "stack": stack})
        return real(*a, **k)
    setattr(owner, name, wrapped)


watch(torch._C, "_cuda_getDeviceCount")
watch(torch.cuda, "_lazy_init")
t0 = time.perf_counter()
import torch._inductor.compile_fx  # noqa: E402,F401  (what torch.compile's first call imports)
out["import_inductor_s"] = round(time.perf_counter() - t0, 3)
if "--keys" in sys.argv:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from ppo_bench.agent.runtimes import hash_compile_keys  # noqa: E402
    t0 = time.perf_counter()
    hash_compile_keys()
    out["hash_compile_keys_s"] = round(time.perf_counter() - t0, 3)
out["initialized_in_parent"] = torch.cuda.is_initialized()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    try:
        from torch._inductor import codecache
        hashed = []  # build_code_hash's top-level calls: torch_key computed here, not inherited
        real_hash = codecache.build_code_hash

        def counted_hash(roots, prefix, hasher):
            if prefix == "":
                hashed.append(roots)
            return real_hash(roots, prefix, hasher)
        codecache.build_code_hash = counted_hash
        t0 = time.perf_counter()
        x = torch.ones(4, device="cuda")
        f = torch.compile(lambda v: (v * 2).sum(), fullgraph=True)
        got = float(f(x))
        msg = {"ok": got == 8.0, "first_compile_s": round(time.perf_counter() - t0, 3),
               "hashed_torch_sources_in_child": len(hashed)}
    except Exception as e:  # noqa: BLE001  (what the child met is the answer)
        msg = {"ok": False, "error": f"{type(e).__name__}: {e}"[:400]}
    os.write(w, json.dumps(msg).encode())
    os._exit(0)
os.close(w)
os.waitpid(pid, 0)
out["child"] = json.loads(os.read(r, 65536).decode() or "{}")
print(json.dumps(out), flush=True)
