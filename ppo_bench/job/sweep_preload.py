"""What a sweep's fork server imports: the child's module (`child`: torch, dynamo, the drivers), what
every job imports past its first line (ale-py's vector env, the default backend's; the record's
statistics, for a precision target's plan at the pilot's end, `record.precision.needed`, and the
record's interval: their t quantile is scipy.special's, which imports in a fraction of scipy.stats'
time) and, where the machine has CUDA, inductor's compile path and the two hashes its caches are
keyed by (`runtimes.hash_compile_keys`).

A compiled policy's first call imports inductor (0.8-0.9 s on an H100, 2026-12-06), in every job's
process, since each job's child is a fresh fork. Imported once in the server, every job forked after
it starts with it. A single run does not preload it: its one job would import it anyway, and a job
that compiles nothing (learn_fast's graphed runtime) would wait for it before its first line. On an
H100 (2026-12-06) a sweep's first job waited 2.2 s for these imports (0.6-0.7 s for the child's
module alone), and every job's compiled first step took 1.04-1.13 s (1.57-1.69 s); with the summary's
imports moved beside the first job too, a two-job sweep took 0.85-0.94x the time (docs/findings.md).

inductor asks `torch.cuda.is_available()` as it is imported (torch 2.11:
`torch/_inductor/runtime/benchmarking.py`), and that call initialises CUDA's driver in the process
that asks, unless PYTORCH_NVML_BASED_CUDA_CHECK=1 (then NVML answers, and CUDA stays untouched). A
server that asked without it forked children that could not use CUDA ("Cannot re-initialize CUDA in
forked subprocess"; `bench/fork_inductor_probe.py`). So this module sets the variable before
anything here asks, in the server's own environment, whatever the user set it to (torch reads only
"1" as yes): its children inherit it, and the parent's environment, which says when the server must
restart (`forkserver.context`), is left as it was.
"""

import os

os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"

from ppo_bench.job import child  # noqa: E402  (first: its clock of the imports begins with the package)

import torch  # noqa: E402
from ale_py.vector_env import AtariVectorEnv  # noqa: E402,F401

from ppo_bench.record import stats  # noqa: E402,F401

if torch.cuda.is_available():  # NVML's answer: no CUDA here, so the children can use it
    import torch._inductor.compile_fx  # noqa: E402,F401  (what torch.compile's first call imports)

    from ppo_bench.agent.runtimes import hash_compile_keys  # noqa: E402
    hash_compile_keys()

child.imports_went_on()
