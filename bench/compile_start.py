"""What a compiled agent's first step costs in a sweep's later job, by what its process imported first.

    python bench/compile_start.py [--rounds 3] [--variants child,preload,...] [--profile] [overrides ...]

A sweep's later job is a child forked from a server that already imported `ppo_bench.job.child`
(torch, dynamo); torch.compile's first call then imports inductor (and triton), traces the policy,
compiles it or loads it from inductor's on-disk cache, and captures its CUDA graph. Each round runs
one fresh process per variant, in the order A B C, then C B A:

- `child`: imports only what run.py's fork server imports (ppo_bench.job.child), and compiles with
  inductor's default compile threads (a pool of workers), as the compiled runtime did before it set 1;
- `preload_pool`: imports inductor's compile path as well before the job's clock starts, default threads;
- `preload`: that, with the runtime's own setting (compile_threads 1: no pool);
- `preload_keys`: that, and the two hashes inductor's caches are keyed by, computed before the
  job's clock (`runtimes.hash_compile_keys`), as a sweep's fork server computes them for the jobs
  it forks (`job/sweep_preload.py`), where the machine has CUDA.

A sweep's later job is `preload_keys`: its fork server imports inductor's compile path, asking NVML
rather than CUDA whether there is a GPU (imported plainly, that import initialised CUDA in the
server and no child forked after it could use CUDA), and computes the hashes. The variants are
measured in processes that never fork.

Each process times its imports, then (the job's clock) CUDA's context, the agent_only driver of the
composed config (overrides as run.py takes them; agent.runtime=compiled, 8 envs by default), its
first step and the next ten; then the processes it started (inductor's compile pool): how many
are alive and the CPU seconds they used, at once and 5 s later; and inductor's cache counters.
With `--profile`, where the first step's time goes: dynamo's own phase timers (`dynamo_phases`,
seconds summed over the step's compiles) and cProfile's 60 functions of most cumulative time and
20 of most time of their own (`first_step_top`; the profiler's overhead counts in that run's
`first_step`).
Prints one JSON line per process and a table of medians.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("child", "preload_pool", "preload", "preload_keys")
DEFAULTS = ["mode=agent_only", "agent.runtime=compiled", "env.num_envs=8"]


def first_step_top(profile, n: int = 60) -> dict:
    """cProfile's n functions of most cumulative time and n/3 of most time of their own (the first
    list starts with the call chain down to dynamo's tracer): [seconds, calls, where]."""
    import pstats
    stats = pstats.Stats(profile).stats.items()
    row = lambda f, line, fn, secs, calls: [round(secs, 3), calls, f"{Path(f).name}:{line}:{fn}"]  # noqa: E731
    return {"cumulative": [row(*k, ct, nc) for k, (_, nc, _, ct, _) in
                           sorted(stats, key=lambda kv: kv[1][3], reverse=True)[:n]],
            "own": [row(*k, tt, nc) for k, (_, nc, tt, _, _) in
                    sorted(stats, key=lambda kv: kv[1][2], reverse=True)[:n // 3]]}


def child(variant: str, overrides: list[str], profile: bool = False) -> dict:
    out: dict = {"variant": variant}
    t = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        out[name] = round(now - t, 3)
        t = now

    sys.path.insert(0, str(ROOT))
    from ppo_bench.job import child as job_child
    lap("import_child")
    if variant != "child":
        import torch._inductor.compile_fx  # noqa: F401  (what torch.compile's first call imports)
    if variant == "preload_keys":
        from ppo_bench.agent.runtimes import hash_compile_keys
        began = time.perf_counter()
        hash_compile_keys()
        out["hash_compile_keys"] = round(time.perf_counter() - began, 3)
    import torch._inductor.config as inductor

    from ppo_bench.agent import runtimes
    if variant in ("child", "preload_pool"):  # inductor's default threads, where the runtime sets 1
        runtimes.COMPILE_THREADS = inductor.decide_compile_threads()
    lap("import_inductor")
    import torch
    from hydra import compose, initialize_config_dir
    from torch._dynamo.utils import counters

    from ppo_bench.config.schema import register_configs
    register_configs()
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[*DEFAULTS, *overrides])
    lap("compose")
    device = job_child.resolve_device(cfg.device)
    torch.zeros(1, device=device)
    lap("cuda_context")
    parts: dict = {}
    driver = job_child.build(cfg, device, parts)
    out["setup"] = {k: round(v, 3) for k, v in parts.items()}
    lap("build")
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    if profile:
        import cProfile
        from torch._dynamo.utils import compile_times
        prof = cProfile.Profile()
        prof.enable()
    driver.step(0)
    sync()
    if profile:
        prof.disable()
    lap("first_step")
    if profile:
        names, secs = compile_times(repr="csv", aggregate=True)
        out["dynamo_phases"] = {k: round(float(v), 3) for k, v in zip(names, secs)}
        out["first_step_top"] = first_step_top(prof)
    for s in range(1, 11):
        driver.step(s)
    sync()
    lap("next_ten_steps")
    out["descendants"] = descendants()
    time.sleep(5)
    out["descendants_5s_later"] = descendants()
    out["inductor_counters"] = {k: v for k, v in counters["inductor"].items() if "cache" in k}
    out["compile_threads"] = runtimes.COMPILE_THREADS
    return out


def descendants() -> dict:
    """This process's descendants alive now: how many, and the CPU seconds they have used."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(d)] = int(fields[1])
            cpu[int(d)] = (int(fields[11]) + int(fields[12])) / tick
    mine, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier} - mine
        mine |= frontier
    return {"alive": len(mine), "cpu_s": round(sum(cpu[p] for p in mine), 2)}


def main() -> None:
    args = sys.argv[1:]
    profile = "--profile" in args
    args = [a for a in args if a != "--profile"]
    if args and args[0] == "--child":
        print(json.dumps(child(args[1], args[2:], profile)), flush=True)
        return
    rounds = 3
    if args[:1] == ["--rounds"]:
        rounds, args = int(args[1]), args[2:]
    variants = VARIANTS
    if args[:1] == ["--variants"]:
        variants, args = tuple(args[1].split(",")), args[2:]
    rows = []
    for r in range(rounds):
        for v in variants if r % 2 == 0 else variants[::-1]:
            p = subprocess.run([sys.executable, __file__, "--child", v, *args] + ["--profile"] * profile,
                               capture_output=True,
                               text=True, timeout=300)
            line = [x for x in p.stdout.splitlines() if x.startswith("{")]
            if p.returncode or not line:
                print(f"round {r} {v}: exit {p.returncode}\n{p.stderr[-2000:]}", flush=True)
                continue
            row = json.loads(line[-1]) | {"round": r}
            rows.append(row)
            print(json.dumps(row), flush=True)
    keys = ["import_child", "import_inductor", "cuda_context", "build", "first_step", "next_ten_steps"]
    print("\ndescendants (alive, CPU s) after ten steps and 5 s later: " + "; ".join(
        f"{r['variant']} {r['descendants']['alive']}, {r['descendants']['cpu_s']} / "
        f"{r['descendants_5s_later']['alive']}, {r['descendants_5s_later']['cpu_s']}" for r in rows))
    print("\n| variant | " + " | ".join(keys) + " | imports + job, median s |")
    print("|---" * (len(keys) + 2) + "|")
    for v in variants:
        got = [r for r in rows if r["variant"] == v]
        if not got:
            continue
        med = [statistics.median(r[k] for r in got) for k in keys]
        total = statistics.median(sum(r[k] for k in keys) for r in got)
        print(f"| {v} ({len(got)}) | " + " | ".join(f"{m:.2f}" for m in med) + f" | {total:.2f} |")


if __name__ == "__main__":
    main()
