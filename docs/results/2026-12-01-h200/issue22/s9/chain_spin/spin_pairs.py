"""Per round: each mode's env-steps/s with the spinners over without (same round, back to back), geometric
mean with a 95% t-interval over the rounds.   python spin_pairs.py .   (the folder holding none/ and spin/)"""
import json, glob, math, sys
import numpy as np
from scipy import stats
def load(root):
    rows = {}
    for f in glob.glob(f"{root}/**/result.json", recursive=True):
        d = json.load(open(f))
        if d["status"] == "ok": rows[(d["round"], d["num_envs"], d["mode"])] = d["throughput"]["mean"]
    return rows
a, b = load(sys.argv[1] + "/none"), load(sys.argv[1] + "/spin")
for mode in ("env_only", "agent_only", "sendrecv"):
    for n in (1, 8):
        logs = [math.log(b[k] / a[k]) for k in a if k[1:] == (n, mode) and k in b]
        m = np.mean(logs); h = stats.t.ppf(0.975, len(logs) - 1) * np.std(logs, ddof=1) / math.sqrt(len(logs))
        none = np.mean([a[k] for k in a if k[1:] == (n, mode)]); spin = np.mean([b[k] for k in b if k[1:] == (n, mode)])
        print(f"| {mode} | {n} | {none:.0f} | {spin:.0f} | {math.exp(m):.2f}x [{math.exp(m-h):.2f}, {math.exp(m+h):.2f}] | {', '.join(f'{math.exp(x):.2f}' for x in logs)} |")
