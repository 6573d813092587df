"""Why does the graphed reference update differ from eager by more than eager's own noise?"""
import sys, itertools, torch
sys.path.insert(0, "tests")
from test_agent import twin_agents, make_agent, filled_rollout, move_gaps

def run(name, bench, det, eps):
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = False
    eager, graphed = twin_agents(4, 4, name)
    again = make_agent(eager.cfg, 6, 4, eager.device, 4)
    again.net.load_state_dict(eager.net.state_dict())
    torch.backends.cudnn.benchmark = bench
    torch.backends.cudnn.deterministic = det
    for a in (eager, graphed, again):
        filled_rollout(a)
        if eps is not None:
            for g in a.opt.param_groups: g["eps"] = eps
    out = []
    for k in range(2):
        before = [p.detach().clone() for p in eager.net.parameters()]
        order = eager.new_order()
        for a in (eager, graphed, again):
            a.update(order)
        noise, gaps = move_gaps(before, eager, again), move_gaps(before, eager, graphed)
        out.append((max(noise), max(gaps), sum(g > 2 * n + 0.01 for g, n in zip(gaps, noise))))
        with torch.no_grad():
            for a in (graphed, again):
                for p, pe in zip(a.net.parameters(), eager.net.parameters()):
                    p.copy_(pe)
    print(name, f"bench={bench} det={det} eps={eps}", " | ".join(f"noise {n:.2e} graphed {g:.2e} over {o}" for n, g, o in out), flush=True)

for name in ("nature_cnn", "impala_cnn"):
    for bench, det, eps in [(True, False, None), (False, True, None), (True, True, None), (False, True, 1.0), (True, False, 1.0)]:
        try:
            run(name, bench, det, eps)
        except Exception as e:
            print(name, bench, det, eps, "ERROR", repr(e)[:200], flush=True)
