"""ppo_bench's step mode beside the reference's own `bench_step`, same schedule, one process.

    python bench/compare_reference.py PATH/TO/bench_ppo_async.py --counts 1 8 64 --out DIR

The reference file is imported as it is (it runs on released ale-py's blocking
step); it is not part of this repository. For each num_envs, each round runs
every contender twice, in the order A B .. B A, so drift over the minutes of one
round falls on all of them alike, and the process state is reset between runs as
it is between sweep jobs. Prints ratios project / reference per round (each
contender's mean over its runs of the round) with a 95% paired t-interval over
the rounds, which is the figure to read, and the ratio of all reps pooled with a
Welch interval, which treats the reps of one run as independent of each other
although whole runs differ (on the H200 one job's mean ran 18% under the same
config's job before it in one round, 2026-12-03); writes compare.json. Each project run's line
also says how its process was scheduled over its timed repetitions (machine.scheduling), to
tell why one ran slower than its twin.

`--uploads pinned pageable` runs the project with each frame upload
(`env.upload`), to measure what the adapter's pinned path costs or saves.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hydra import compose, initialize_config_dir  # noqa: E402

from ppo_bench.job import parent
from ppo_bench.record import stats  # noqa: E402
from ppo_bench.config.schema import UPLOADS, register_configs  # noqa: E402

CONF = Path(__file__).resolve().parents[1] / "conf"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("reference", type=Path)
    p.add_argument("--counts", type=int, nargs="+", default=[1, 8, 64])
    p.add_argument("--rounds", type=int, default=2,
                   help="rounds of A B .. B A per count (2 or more for the paired interval)")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--bench-steps", type=int, default=512,
                   help="loop steps a repetition, both sides (whole 128-step rollouts: docs/measuring.md)")
    p.add_argument("--warmup", type=int, default=64)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--uploads", nargs="+", choices=UPLOADS, default=["pinned"],
                   help="the project's env.upload settings to run beside the reference")
    args = p.parse_args()

    spec = importlib.util.spec_from_file_location("reference", args.reference)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    sched = SimpleNamespace(reps=args.reps, bench_steps=args.bench_steps, warmup=args.warmup,
                            num_steps=128, update_epochs=4, num_minibatches=4)
    register_configs()
    # The reference script's process starts inductor's pool of compile workers at its first config
    # (1 env), before its larger ones; here its first compile would put that start (a process
    # importing torch, then 16 workers) inside a timed run, so one short untimed run goes first.
    ref.bench_step(1, SimpleNamespace(reps=1, bench_steps=8, warmup=4, num_steps=4, update_epochs=1,
                                      num_minibatches=1))
    parent.release()
    rows = []
    contenders = ["reference", *args.uploads]
    for n in args.counts:
        runs = []
        for rnd in range(args.rounds):
            for turn, who in enumerate(contenders + contenders[::-1]):
                if who == "reference":
                    reps = [float(x) for x in ref.bench_step(n, sched)]
                    parent.release()
                else:
                    with initialize_config_dir(str(CONF), version_base="1.3"):
                        cfg = compose("config", overrides=[
                            f"env.num_envs={n}", f"env.upload={who}", "mode=step", f"schedule.reps={args.reps}",
                            f"schedule.bench_steps={args.bench_steps}", f"schedule.warmup={args.warmup}"],
                            return_hydra_config=True)
                    out_dir = args.out / f"ppo_bench_{who}_n{n}_r{rnd}_{turn}"
                    record = parent.run(cfg, output_dir=out_dir)
                    reps, scheduling = record["throughput"]["reps"], record["machine"].get("scheduling")
                runs.append({"who": who, "round": rnd, "reps": reps,
                             **({"scheduling": scheduling} if who != "reference" else {})})
                where = "" if who == "reference" else scheduled(scheduling)
                print(f"n={n} round {rnd} {who}: {stats.summary(reps)['mean']:.0f} env-steps/s{where}", flush=True)
        got = {who: [x for r in runs if r["who"] == who for x in r["reps"]] for who in contenders}
        rounds = {who: [round_ratio(runs, rnd, who) for rnd in range(args.rounds)] for who in args.uploads}
        rows.append({"n": n, "order": contenders + contenders[::-1], "rounds": args.rounds, "runs": runs, **got,
                     "ratio": {who: stats.ratio_interval(got[who], got["reference"]) for who in args.uploads},
                     "round_ratios": rounds,
                     "paired": {who: stats.paired_ratio_interval(rounds[who]) for who in args.uploads}})
    (args.out / "compare.json").write_text(json.dumps({"schedule": vars(sched), "rows": rows}, indent=2))
    print("\n| num_envs | upload | reference | ppo_bench | per round | paired over rounds | all reps pooled (Welch) |"
          "\n|---|---|---|---|---|---|---|")
    for row in rows:
        ref_s = stats.summary(row["reference"])
        for who in args.uploads:
            own_s, r, pr = stats.summary(row[who]), row["ratio"][who], row["paired"][who]
            paired = f"{pr['ratio']:.3f}x" + ("" if pr["lo"] is None else f" [{pr['lo']:.3f}, {pr['hi']:.3f}]")
            print(f"| {row['n']} | {who} | {ref_s['mean']:.0f} ± {ref_s['ci95']:.0f} | {own_s['mean']:.0f} ± "
                  f"{own_s['ci95']:.0f} | {', '.join(f'{x:.3f}' for x in row['round_ratios'][who])} | {paired} | "
                  f"{r['ratio']:.3f}x [{r['lo']:.3f}, {r['hi']:.3f}] |")


def scheduled(s: dict | None) -> str:
    """A project job's scheduling over its timed repetitions (machine.scheduling): its twin timed the
    same steps, so more CPU seconds say a slower CPU, more seconds waiting a CPU lost to other
    threads (see docs/measuring.md)."""
    if not s or not s.get("loop_cpu_s"):
        return ""
    steal = "" if s.get("steal_share") is None else f", steal {s['steal_share']:.1%}"
    return (f"; over its {s['wall_s']:.2f} s timed, the loop thread ran {s['loop_cpu_s']:.2f} CPU s and waited "
            f"{s['loop_waited_s']:.3f} s for a CPU; its {s['threads']} threads ran {s['cpu_s']:.2f} CPU s and waited "
            f"{s['waited_s']:.2f} s{steal}")


def round_ratio(runs: list[dict], rnd: int, who: str) -> float:
    """`who` over the reference in round `rnd`: the mean of its runs' mean throughputs over theirs."""
    def mean_of_runs(name: str) -> float:
        return float(np.mean([np.mean(r["reps"]) for r in runs if r["round"] == rnd and r["who"] == name]))
    return mean_of_runs(who) / mean_of_runs("reference")


if __name__ == "__main__":
    main()
