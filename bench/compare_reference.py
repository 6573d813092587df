"""ppo_bench's step mode beside the reference's own `bench_step`, same schedule, one process.

    python bench/compare_reference.py PATH/TO/bench_ppo_async.py --counts 1 8 64 --out DIR

The reference file is imported as it is (it runs on released ale-py's blocking
step); it is not part of this repository. For each num_envs every contender
runs twice, in the order A B .. B A, so drift over the minutes of one count
falls on all of them alike, and the process state is reset between runs as it
is between sweep jobs. Prints ratios project / reference (both runs' reps
pooled) with a 95% Welch interval on log throughput and writes compare.json.

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
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--bench-steps", type=int, default=500)
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
    rows = []
    contenders = ["reference", *args.uploads]
    for n in args.counts:
        got: dict[str, list[float]] = {who: [] for who in contenders}
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
                out_dir = args.out / f"ppo_bench_{who}_n{n}_{turn}"
                reps = parent.run(cfg, output_dir=out_dir)["throughput"]["reps"]
            got[who] += reps
            print(f"n={n} {who}: {stats.summary(reps)['mean']:.0f} env-steps/s", flush=True)
        ratios = {who: stats.ratio_interval(got[who], got["reference"]) for who in args.uploads}
        rows.append({"n": n, "order": contenders + contenders[::-1], **got, "ratio": ratios})
    (args.out / "compare.json").write_text(json.dumps({"schedule": vars(sched), "rows": rows}, indent=2))
    print("\n| num_envs | upload | reference | ppo_bench | ppo_bench / reference |\n|---|---|---|---|---|")
    for row in rows:
        ref_s = stats.summary(row["reference"])
        for who in args.uploads:
            own_s, r = stats.summary(row[who]), row["ratio"][who]
            print(f"| {row['n']} | {who} | {ref_s['mean']:.0f} ± {ref_s['ci95']:.0f} | {own_s['mean']:.0f} ± "
                  f"{own_s['ci95']:.0f} | {r['ratio']:.3f}x [{r['lo']:.3f}, {r['hi']:.3f}] |")


if __name__ == "__main__":
    main()
