"""Per round: sendrecv over the chain bound (1 / (1/env_only + 1/agent_only), that round's probes), and the
geometric mean with a 95% t-interval over the rounds.   python chain_pairs.py none"""
import json, glob, math, sys
import numpy as np
from scipy import stats
root = sys.argv[1]
rows = {}
for f in glob.glob(f"{root}/**/result.json", recursive=True):
    d = json.load(open(f))
    if d["status"] != "ok": print("not ok", f, d["status"], d.get("error")); continue
    rows[(d["round"], d["num_envs"], d["mode"])] = d["throughput"]["mean"]
for n in (1, 8):
    logs = []
    for r in sorted({k[0] for k in rows}):
        try:
            e, a, l = rows[(r, n, "env_only")], rows[(r, n, "agent_only")], rows[(r, n, "sendrecv")]
        except KeyError as k: print("missing", k); continue
        chain = 1 / (1 / e + 1 / a)
        logs.append(math.log(l / chain))
        print(f"n={n} round {r}: env_only {e:.0f} agent_only {a:.0f} chain {chain:.0f} sendrecv {l:.0f} ratio {l/chain:.3f}")
    m = np.mean(logs); h = stats.t.ppf(0.975, len(logs) - 1) * np.std(logs, ddof=1) / math.sqrt(len(logs))
    print(f"n={n}: paired {math.exp(m):.3f} [{math.exp(m-h):.3f}, {math.exp(m+h):.3f}] over {len(logs)} rounds")
