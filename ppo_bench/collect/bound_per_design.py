"""The bound each loop is held to, by its design: the chain bound, or the probes' limit.

Two ceilings bound a loop. With E the env probe's throughput (the emulators alone) and
A the agent probe's (the agent alone), both at the loop's groups g and num_envs n (env-steps/s):

- The chain. Where every env waits for its own batch with nothing to overlap it, an env's cycle is
  its own emulator step, n/E seconds (E/n steps/s per env, when each env has a thread of its own),
  then its batch's agent time, n/(g*A) (the agent probe at g groups does g batches of n/g envs per
  loop step): chain = n / (n/E + n/(g*A)) = 1 / (1/E + 1/(g*A)), per env t_env / (t_env + t_agent).
  At g = 1 it is probe_limit's `serial`. The agent serves every batch, so such a loop cannot beat A either:
  its bound is min(chain, limit); where the chain is above the limit (a fast emulator, many groups)
  the limit binds, and the row says so.
- The limit, min(E, A) (probe_limit): where more envs than emulator threads (or cores) share them, the
  cores are the bottleneck and one batch's agent step overlaps other batches' emulator steps.

Which design a loop row has: the chain where every env waits for its batch with nothing to overlap
it: one batch (groups == 1: the envs of a loop step all wait for the agent's step on them), or
batches (groups > 1) with no more envs than emulator threads (the job's `num_threads`, recorded in
its result) and cores (the job's cpu_count): each env then has a thread and a core of its own, and
its next step waits for its batch. Else the limit. A file from before `num_threads` was loaded
cannot say that each env had a thread: its batched rows are held to the limit (the looser bound,
true whatever the design), and say why. The efficiency against the row's bound is pooled and paired
by round as probe_limit's efficiency is. This section adds its columns to table.csv and a table per group
under the throughput table (with a footer line on the two ceilings); it writes no file of its own.
The same bound rep by rep, where the env probe ran interleaved in the loop's jobs: interleaved.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ppo_bench.registry import MODES
from .common import bounded, interval, marks, md_table, mode_order, paired, probes
from .load import Collection
from .probe_limit import loop_rounds, probe_means, probe_rounds

CHAIN, LIMIT = "chain", "limit"  # bound_kind
BEAT = " (beat its bound)"  # a loop faster than its bound: a probe measured low, or it overlaps what the bound adds


def env_probe() -> str:
    """The probe of the emulators alone (the registry's probe with emulators and no agent)."""
    return next(m.name for m in MODES if m.kind == "probe" and m.emulators and not m.agent)


def agent_probe() -> str:
    """The probe of the agent alone (the registry's probe with an agent and no emulators)."""
    return next(m.name for m in MODES if m.kind == "probe" and m.agent and not m.emulators)


def chain_bound(env: float, agent: float, groups: int) -> float:
    """1 / (1/E + 1/(g*A)): an env's own step, then its batch's agent time (see the module doc)."""
    return 1 / (1 / env + 1 / (groups * agent))


def design(r, cpus: float) -> tuple[bool, str]:
    """Whether a loop row waits in a chain (every env for its own batch, nothing to overlap it), and why."""
    n, threads = r.num_envs, r.num_threads
    if r.groups == 1:
        return True, "one batch: every env waits for the agent's step on the whole batch, nothing overlaps it"
    if pd.isna(threads):
        return False, "num_threads not recorded (an older file): the limit, which holds whatever the design"
    if n > threads:
        return False, (f"num_envs {n} > num_threads {threads}: envs share emulator threads, the cores are the "
                       "bottleneck and one batch's agent step overlaps the others' emulator steps")
    if pd.notna(cpus) and n > cpus:
        return False, (f"num_envs {n} > {cpus:.0f} cores: threads share cores, the cores are the bottleneck "
                       "and batches overlap")
    return True, (f"batches with num_envs {n} <= num_threads {threads}: each env has a thread of its own "
                  "and waits for its batch's agent step")


def build(c: Collection) -> None:
    """The columns of COLUMNS in table.csv (NaN and "" for probes and rows without both probes)."""
    t = c.table
    found = probe_means(t, c.jobs)
    t["chain"] = [chain_bound(e, a, g) for e, a, g in zip(found[env_probe()], found[agent_probe()], t["groups"])]
    cpus = c.jobs.groupby(["group", "mode", "num_envs"])["cpus"].min()
    chained, cols = [], {k: [] for k in ("bound", "bound_kind", "bound_why")}
    for r in t.itertuples():
        bound, kind, why, chain = np.nan, "", "", False  # NaN chain: a probe missing, probe_limit says which
        if r.mode_name not in probes() and pd.notna(r.limit) and pd.notna(r.chain):
            chain, why = design(r, cpus.get((r.group, r.mode, r.num_envs), np.nan))
            kind = CHAIN if chain and r.chain < r.limit else LIMIT
            bound = r.chain if kind == CHAIN else r.limit
            if chain and kind == LIMIT:
                why += f"; its chain bound ({r.chain:.0f}) is above the limit: the agent alone is slower"
        chained.append(chain)
        for k, v in zip(cols, (bound, kind, why)):
            cols[k].append(v)
    for k, v in cols.items():
        t[k] = v
    t["bound_efficiency"] = t["mean"] / t["bound"]
    _paired(t, c.jobs, chained)


def _paired(table: pd.DataFrame, jobs: pd.DataFrame, chained: list[bool]) -> None:
    """Per loop row, per round with the loop and both probes at its groups: the loop's mean over that
    round's bound (by the row's design: the round's chain capped by its limit, or its limit); a
    t-interval on the logs of 2 rounds or more."""
    loops, means = loop_rounds(jobs), probe_rounds(jobs)
    cols = {k: [] for k in ("bound_efficiency_paired", "bound_efficiency_lo", "bound_efficiency_hi",
                            "bound_efficiency_rounds")}
    for r, chain in zip(table.itertuples(), chained):
        ratios = []
        if pd.notna(r.bound):
            for rnd, loop in sorted(loops.get((r.group, r.mode, r.num_envs), {}).items()):
                e, a = (means.get((r.group, p, r.groups, r.num_envs, *rnd)) for p in (env_probe(), agent_probe()))
                if e is not None and a is not None:
                    ratios.append(loop / min(chain_bound(e, a, r.groups) if chain else np.inf, e, a))
        for k, v in zip(cols, (*interval(paired(ratios)), len(ratios))):
            cols[k].append(v)
    for k, v in cols.items():
        table[k] = v


def share(r, number=lambda x: f"{x:.0f}") -> str:
    """A loop's share of its bound as every table and the page say it: "84% of chain 759" (`number`: how
    the bound's figure is written)."""
    return f"{r.bound_efficiency:.0%} of {r.bound_kind} {number(r.bound)}"


def legend(table: pd.DataFrame, lines: list[str]) -> list[str]:
    """What the throughput legend adds where the tables in `lines` show an eff column: the one bound."""
    if not any(line.startswith("| num_envs |") and "| eff " in line for line in lines):
        return []
    return ["eff <mode> = the loop's share of the one bound its design holds it to, named with its figure (chain "
            "or limit: the bound per design table below says which and why): mean over the bound, and paired: "
            "per round, the loop over that round's bound, t-interval on log ratios"] + (
        [f"{BEAT.strip()} = the loop ran faster than its bound: why, under its table"]
        if any(BEAT in line for line in lines) else [])


def columns(t: pd.DataFrame, loops: list[str]) -> tuple[list[str], dict[int, list[str]]]:
    """One group's efficiency columns in its throughput table: `eff <mode>` per loop mode with a bound, and
    the cells per num_envs (empty where that loop has none)."""
    held = [m for m in loops if t.loc[t["mode"] == m, "bound"].notna().any()]
    cell = {(r.mode, r.num_envs): r for r in t.itertuples()}
    return [f"eff {m}" for m in held], {n: [_efficiency_cell(cell.get((m, n))) for m in held]
                                         for n in sorted(t["num_envs"].unique())}


def _beat(r) -> bool:
    return bool(r.bound_efficiency > 1 or r.bound_efficiency_paired > 1)  # NaN compares False


def _efficiency_cell(r) -> str:
    """The share of the row's bound, pooled (`share`), and paired with its interval where 2 rounds or more
    had the loop and both probes; marked where the loop beat it (said why under the table: `notes`)."""
    if r is None or pd.isna(r.bound):
        return ""
    over = BEAT if _beat(r) else ""
    if pd.isna(r.bound_efficiency_paired):
        return f"{share(r)}{over}"
    lo, hi = ("?" if pd.isna(x) else f"{x:.0%}" for x in (r.bound_efficiency_lo, r.bound_efficiency_hi))
    return (f"{share(r)}; paired {r.bound_efficiency_paired:.0%} [{lo}, {hi}]"
            f"{marks(r.bound_efficiency_lo, r.bound_efficiency_hi, about_one=False)}{over}")


def notes(t: pd.DataFrame) -> list[str]:
    """A line under a group's table per loop that beat its bound, saying why that can be: above the
    chain but within the limit, it overlaps part of what the chain counts in series (an update beside the
    next rollout) or a probe measured low; above the limit too, the probe that set the limit measured low
    (no loop beats its slower side)."""
    lines = []
    for r in t[t["bound"].notna()].sort_values("num_envs").itertuples():
        if not _beat(r):
            continue
        head = f"- {r.mode} at num_envs {r.num_envs} beat its {r.bound_kind} bound ({r.bound:.0f}): "
        if max(r.mean, r.mean * r.bound_efficiency_paired / r.bound_efficiency
               if pd.notna(r.bound_efficiency_paired) else 0) > r.limit:
            probe = r.limit_probe + ("" if r.groups == 1 else f" groups={r.groups}")
            lines.append(head + f"above the limit ({r.limit:.0f}, {probe}'s mean) too: {probe} measured low "
                         "(noisy or disturbed), so this share is no real one")
        else:
            lines.append(head + f"within the limit ({r.limit:.0f}): the loop overlaps part of what the chain "
                         "counts in series (an update run beside the next rollout), or a probe measured low")
    return [""] + bounded(lines) if lines else []


def footer(table: pd.DataFrame) -> list[str]:
    """The line under the throughput tables on the two ceilings, where some row has a bound."""
    if not table["bound"].notna().any():
        return []
    e, a = env_probe(), agent_probe()
    return [f"two ceilings, one bound per loop: chain = 1 / (1/{e} + 1/(groups x {a})) where every env waits for "
            "its own batch with nothing to overlap it (one batch, groups = 1; or batches with num_envs <= "
            "num_threads and <= cores: each env has an emulator thread of its own): per env t_env / (t_env + "
            f"t_agent), capped by the limit; else limit = min({e}, {a}), the emulators and the agent alone (more "
            "envs than threads or cores: the cores are the bottleneck and batches overlap); bound = the one the "
            "row is held to, why = the design that says so; the other ceiling is only an input, never a second "
            "efficiency", ""]


LIMIT_HEADER = "limit: min({}, {})"  # the detail table's column of the limit, an input


def markdown(t: pd.DataFrame) -> list[str]:
    """One group's rows and the bound each is held to, with its inputs (none where no row has one)."""
    rows = t[t["bound"].notna()]
    if rows.empty:
        return []
    rows = rows.assign(_o=rows["mode"].map(mode_order)).sort_values(["num_envs", "_o"])
    cells = [[str(r.num_envs), r.mode, "n/a" if pd.isna(r.num_threads) else str(r.num_threads), f"{r.limit:.0f}",
              f"{r.chain:.0f}", f"{r.bound_kind} {r.bound:.0f}", r.bound_why] for r in rows.itertuples()]
    return ["", "*Bound per design*", ""] + md_table(
        ["num_envs", "mode", "num_threads", LIMIT_HEADER.format(env_probe(), agent_probe()), "chain", "bound", "why"],
        cells)
