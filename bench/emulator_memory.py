"""How much memory, and how long to build, one emulator of a backend takes on this machine.

For each count, a fresh Python process builds the vector env of `mode=env_only` over that many envs
of the game, through the job's own `child.make_envs` (the backend adapter of ppo_bench/env/backends.py, in
a process that has imported what a job's process has, torch included), resets it and takes a few
steps of random actions. It reads the memory of its process tree (Pss from /proc/<pid>/smaps_rollup,
summed over the process and its children: gymnasium's workers are forked processes sharing pages
with it, which Pss counts once) after its imports, after the constructor and after the steps, and
times the constructor and the reset. The per-env figure is the slope between two counts (what one
more env adds, without the process's fixed part); registry.BACKENDS keeps it, with a margin, for
the check that refuses a num_envs whose emulators cannot fit the machine.

    python bench/emulator_memory.py --backend ale --num-envs 64 256
"""

import argparse
import json
import os
import subprocess
import sys
import time

MIB = 2 ** 20


def footprint(pid: int = 0) -> int:
    """Bytes of Pss of the process `pid` (0: this one) and its descendants."""
    pid = pid or os.getpid()
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            total += next(int(line.split()[1]) for line in f if line.startswith("Pss:")) * 1024
        for thread in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{thread}/children") as f:
                total += sum(footprint(int(child)) for child in f.read().split())
    except (FileNotFoundError, ProcessLookupError):  # a worker that ended meanwhile
        pass
    return total


def cpu_seconds(pid: int = 0) -> float:
    """CPU seconds (user and system, all threads) of the process `pid` (0: this one) and its descendants:
    unlike the wall time, what a build costs whatever else the machine runs."""
    pid = pid or os.getpid()
    total = 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
        for thread in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{thread}/children") as f:
                total += sum(cpu_seconds(int(child)) for child in f.read().split())
    except (FileNotFoundError, ProcessLookupError):
        pass
    return total


def one(backend: str, game: str, n: int, steps: int) -> dict:
    """In this process: build, reset and step n envs; the footprint at each point and the times."""
    import numpy as np

    from ppo_bench.job import child
    from probe_config import compose

    cfg = compose([f"env.backend={backend}", f"env.game={game}", f"env.num_envs={n}", "mode=env_only"])
    base = footprint()
    t, c = time.perf_counter(), cpu_seconds()
    envs = child.make_envs(cfg)
    build_s, build_cpu = time.perf_counter() - t, cpu_seconds() - c
    built = footprint()
    t, c = time.perf_counter(), cpu_seconds()
    envs.reset(seed=0)
    reset_s, reset_cpu = time.perf_counter() - t, cpu_seconds() - c
    rng = np.random.default_rng(0)
    for _ in range(steps):
        envs.step(rng.integers(0, int(envs.single_action_space.n), envs.batch_size))
    stepped = footprint()
    envs.close()
    return {"num_envs": n, "build_s": build_s, "reset_s": reset_s, "build_cpu_s": build_cpu, "reset_cpu_s": reset_cpu,
            "base_mib": base / MIB,
            "built_mib": (built - base) / MIB, "stepped_mib": (stepped - base) / MIB, "load": os.getloadavg()[0]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", default="ale")
    p.add_argument("--game", default="pong")
    p.add_argument("--num-envs", type=int, nargs="+", default=[64, 256])
    p.add_argument("--steps", type=int, default=50, help="steps after the reset (frames fill the buffers)")
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # the child's half
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(args.backend, args.game, args.num_envs[0], args.steps)))
        return
    rows = []
    for n in args.num_envs:
        out = subprocess.run([sys.executable, __file__, "--one", "--backend", args.backend, "--game", args.game,
                              "--num-envs", str(n), "--steps", str(args.steps)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(r)
        print(f"{args.backend} {args.game} num_envs={n}: constructor {r['build_s']:.2f} s "
              f"({r['build_s'] / n * 1e3:.1f} ms/env; {r['build_cpu_s']:.2f} s of CPU), reset {r['reset_s']:.2f} s "
              f"({r['reset_cpu_s']:.2f} s of CPU); footprint after imports "
              f"{r['base_mib']:.0f} MiB, +{r['built_mib']:.1f} MiB built ({r['built_mib'] / n:.3f} MiB/env), "
              f"+{r['stepped_mib']:.1f} MiB after reset and {args.steps} steps ({r['stepped_mib'] / n:.3f} MiB/env); "
              f"1-minute load {r['load']:.1f} on {os.cpu_count()} cores")
    for a, b in zip(rows, rows[1:]):
        dn = b["num_envs"] - a["num_envs"]
        print(f"slope {a['num_envs']} -> {b['num_envs']} envs: {(b['built_mib'] - a['built_mib']) / dn:.3f} MiB/env "
              f"built, {(b['stepped_mib'] - a['stepped_mib']) / dn:.3f} MiB/env stepped, "
              f"{(b['build_s'] - a['build_s']) / dn * 1e3:.1f} ms/env to build, "
              f"{(b['build_cpu_s'] + b['reset_cpu_s'] - a['build_cpu_s'] - a['reset_cpu_s']) / dn * 1e3:.1f} ms/env "
              "of CPU to build and reset")


if __name__ == "__main__":
    main()
