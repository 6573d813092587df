"""ppo_bench's step mode beside the reference's own `bench_step`, same schedule, one process.

    python bench/compare_reference.py PATH/TO/bench_ppo_async.py --counts 1 8 64 --out DIR

The reference file is imported as it is (it runs on released ale-py's blocking
step); it is not part of this repository. For each num_envs both run back to
back, the order alternating between counts, and the process state is reset
between them as it is between sweep jobs. Prints ratios project / reference
with a 95% Welch interval on log throughput and writes compare.json.
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

from ppo_bench import runner, stats  # noqa: E402
from ppo_bench.config import register_configs  # noqa: E402

CONF = Path(__file__).resolve().parents[1] / "conf"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("reference", type=Path)
    p.add_argument("--counts", type=int, nargs="+", default=[1, 8, 64])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--bench-steps", type=int, default=500)
    p.add_argument("--warmup", type=int, default=64)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()

    spec = importlib.util.spec_from_file_location("reference", args.reference)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    sched = SimpleNamespace(reps=args.reps, bench_steps=args.bench_steps, warmup=args.warmup,
                            num_steps=128, update_epochs=4, num_minibatches=4)
    register_configs()
    rows = []
    for i, n in enumerate(args.counts):
        with initialize_config_dir(str(CONF), version_base="1.3"):
            cfg = compose("config", overrides=[
                f"env.num_envs={n}", "mode=step", f"schedule.reps={args.reps}",
                f"schedule.bench_steps={args.bench_steps}", f"schedule.warmup={args.warmup}"],
                return_hydra_config=True)
        got = {}
        for who in (("reference", "ppo_bench") if i % 2 == 0 else ("ppo_bench", "reference")):
            if who == "reference":
                got[who] = [float(x) for x in ref.bench_step(n, sched)]
                runner.release()
            else:
                got[who] = runner.run(cfg, output_dir=args.out / f"ppo_bench_n{n}")["throughput"]["reps"]
            print(f"n={n} {who}: {stats.summary(got[who])['mean']:.0f} env-steps/s", flush=True)
        r = stats.ratio_interval(got["ppo_bench"], got["reference"])
        rows.append({"n": n, "order": list(got), **{k: got[k] for k in got}, "ratio": r})
    (args.out / "compare.json").write_text(json.dumps({"schedule": vars(sched), "rows": rows}, indent=2))
    print("\n| num_envs | reference | ppo_bench | ppo_bench / reference |\n|---|---|---|---|")
    for row in rows:
        ref_s, own_s, r = stats.summary(row["reference"]), stats.summary(row["ppo_bench"]), row["ratio"]
        print(f"| {row['n']} | {ref_s['mean']:.0f} ± {ref_s['ci95']:.0f} | {own_s['mean']:.0f} ± {own_s['ci95']:.0f}"
              f" | {r['ratio']:.2f}x [{r['lo']:.2f}, {r['hi']:.2f}] |")


if __name__ == "__main__":
    main()
