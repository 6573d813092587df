"""Paired reading of the parked-sibling runs: within a setup_batch=2 sweep, the first job of each pair is
timed while the second waits parked; in a setup_batch=1 sweep the same positions run alone. Prints, per
experiment, the mean log ratio first/second for each side, their difference (the sibling's effect) with a
Welch 95% interval, and all jobs of the batched sweeps over all of the unbatched."""
import glob, json, math, sys
from datetime import datetime
from scipy import stats

def t(s): return datetime.fromisoformat(s).timestamp()

def load(run):
    recs = []
    for f in glob.glob(f"{run}/**/result.json", recursive=True):
        r = json.load(open(f))
        recs.append((t(r["timing"]["measure_started_at"]), r["throughput"]["mean"]))
    return [m for _, m in sorted(recs)]

def summary(name, b2, b1):
    def pairs(runs): return [math.log(rs[i] / rs[i + 1]) for rs in runs for i in range(0, len(rs) - 1, 2)]
    p2, p1 = pairs(b2), pairs(b1)
    ci = stats.ttest_ind(p2, p1, equal_var=False).confidence_interval(0.95)
    m2, m1 = sum(p2) / len(p2), sum(p1) / len(p1)
    a2 = [math.log(x) for rs in b2 for x in rs]; a1 = [math.log(x) for rs in b1 for x in rs]
    wc = stats.ttest_ind(a2, a1, equal_var=False).confidence_interval(0.95)
    print(f"{name}: first/second of a pair: batched {math.exp(m2):.3f} ({len(p2)} pairs), alone {math.exp(m1):.3f} "
          f"({len(p1)} pairs); a parked sibling's effect {math.exp(m2 - m1):.3f} [{math.exp(ci.low):.3f}, {math.exp(ci.high):.3f}]; "
          f"every job, batched over alone {math.exp(sum(a2) / len(a2) - sum(a1) / len(a1)):.3f} [{math.exp(wc.low):.3f}, {math.exp(wc.high):.3f}] "
          f"({len(a2)} and {len(a1)} jobs)")

for name, root, b2, b1 in [("1 env, 6 rounds", "sib1", ["batch2_r0", "batch2_r1"], ["batch1_r0", "batch1_r1"]),
                           ("64 envs, 4 rounds", "sib64", ["batch2_r0", "batch2_r1"], ["batch1_r0", "batch1_r1"])]:
    summary(name, [load(f"{sys.argv[1]}/{root}/{r}") for r in b2], [load(f"{sys.argv[1]}/{root}/{r}") for r in b1])
for n in (1, 64):  # one sweep of both counts: its jobs of one num_envs, in sweep order
    def cells(run):
        out = []
        for f in glob.glob(f"{sys.argv[2]}/{run}/**/result.json", recursive=True):
            r = json.load(open(f))
            if r["num_envs"] == n:
                out.append((t(r["timing"]["measure_started_at"]), r["throughput"]["mean"]))
        return [m for _, m in sorted(out)]
    summary(f"{n} env(s), 4 rounds, one sweep of 1 and 64 envs", [cells("batch2-1"), cells("batch2-4")], [cells("batch1-2"), cells("batch1-3")])
