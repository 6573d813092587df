"""One job: its parent side (check, isolate, record) and its child side (build, measure) in a process of its own."""

CHILD = "ppo_bench.job.child:run"
"""The child's half of a job, by name: the fork server imports its module (torch, the drivers), the
parent never does (it asks torch about CUDA alone, in its check)."""
