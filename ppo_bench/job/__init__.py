"""One job: its parent side (check, isolate, record) and its child side (build, measure) in a process of its own."""

CHILD = "ppo_bench.job.child:run"
"""The child's half of a job, by name: the fork server imports its module (torch, the drivers), the
parent never does (it asks torch about CUDA alone, in its check)."""

SWEEP_PRELOAD = "ppo_bench.job.sweep_preload"
"""What a sweep's fork server imports: the child's module, ale-py's vector env, the record's statistics and, on a
CUDA machine, inductor's compile path, which every later job would import again otherwise (see its
module)."""


def preload_of(multirun: bool) -> str:
    """The module a job's fork server imports: a sweep's jobs share one server and its preload."""
    return SWEEP_PRELOAD if multirun else CHILD.split(":")[0]
