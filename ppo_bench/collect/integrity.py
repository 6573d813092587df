"""What a collection could not use or should not trust, listed in table.md: nothing is dropped silently.

First the jobs counted by outcome (ok, failed, skipped, unusable, no record), so that a table of
the ok ones never reads as the whole sweep. Listed: paths that do not exist, folders that could not
be read, failed jobs, skipped ones (a combination that does not apply, never a failure), jobs
without a record (a job folder without result.json, or a job its sweep noted as launched, see
load.launched: "killed, or still running", or "no record written" where it ended), duplicates (a
measurement read twice, used once), unusable files; then the jobs measured while another job ran
on the same host (contended), while the machine was overloaded, or while its hypervisor took CPU
time from it (stolen), and the machine-state warnings of the jobs that other sections compared.
Contended, overloaded and stolen are also columns of table.csv. This section writes no file of its own.

Jobs of the node launcher (hydra/launcher=node) run side by side by design, each on a GPU and
cores of its own (`placement` in the record): one that overlapped only jobs on other cores and
GPUs is not contended but `shared_node`, a column of table.csv too. Such a figure is sound, but
not the figure of the same job run alone (the jobs share memory bandwidth, caches and the host's
PCIe), so where a collection's timed jobs mix the two, table.md says so, per group: throughput
compared across them is not like for like. Learning runs pool their seeds as ever, unflagged.

A job set up ahead of its turn (setup_batch) ran nothing while it waited, parked (`timing.parked_at`
to `unparked_at`): its run is the two stretches around that wait. Where a collection mixes such jobs
with jobs run one after another, table.md says so too, per group, as for the node.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from ppo_bench.record import marks
from ppo_bench.record.folder import JOB_NOTES
from ppo_bench.record.results import Record
from .common import bounded, mode_order
from .load import Collection, epoch_seconds, run_window, slot_cores
from .sources import REFUSED

CELLS_LISTED = 8  # mode x num_envs cells named on one warning line
NO_RECORD = "with no record"  # jobs without result.json, in the count and in the command line's last line


def build(c: Collection, records: list[tuple[Path, Record]]) -> None:
    """Mark the jobs (and table rows) measured while contended, overloaded or stolen; `records` are every file
    read, one per measurement, for the failed jobs' runs."""
    jobs = c.jobs
    windows = _run_windows(jobs, records)
    c.contended = _contended(jobs, windows)
    c.contention = _stretches(jobs, windows)
    c.shared_node = _shared_node(jobs)
    c.set_up_ahead = _set_up_ahead(jobs)
    c.overloaded = _overloaded(jobs)
    c.stolen = _stolen(jobs)
    flags = (jobs.groupby(["group", "mode", "num_envs"])[["contended", "shared_node", "overloaded", "stolen"]]
             .any().reset_index())
    c.table = c.table.merge(flags, on=["group", "mode", "num_envs"], how="left")


def _run_windows(jobs: pd.DataFrame, records: list[tuple[Path, Record]]) -> pd.DataFrame:
    """Every job's run on its host: the ok ones and the failed ones (a failed job may have run for
    minutes); not the skipped ones, which built nothing, nor the other mode of a pair over one build
    (`of_job`): its job's run is its own. A job that waited, parked, for its turn (setup_batch) ran
    nothing meanwhile: its run is the two stretches around that wait (`_active`)."""
    failed = [{"path": str(p), "host": r.provenance.host, "run_start": w[0], "run_end": w[1], "timing": r.timing,
               "cores": slot_cores(r), "slot_gpu": r.placement and r.placement.gpu}
              for p, r in records if r.status == "failed" for w in [run_window(r.timing)]]
    cols = ["path", "host", "run_start", "run_end", "timing", "cores", "slot_gpu"]
    runs = pd.concat([jobs[jobs["of_job"].isna()][cols], pd.DataFrame(failed, columns=cols)]).dropna(subset=cols[:4])
    pieces = [{**row, "run_start": a, "run_end": b} for row in runs.to_dict("records")
              for a, b in _active((row["run_start"], row["run_end"]), row["timing"])]
    windows = pd.DataFrame(pieces, columns=cols).drop(columns="timing")
    return windows.astype({"run_start": float, "run_end": float}).reset_index(drop=True)


def _active(run: tuple[float, float], timing) -> list[tuple[float, float]]:
    """A job's run less its wait for its turn (setup_batch: `timing.parked_at` to `unparked_at`, where it
    ran nothing): where it may have slowed another job's measurement."""
    parked = (epoch_seconds(timing.parked_at), epoch_seconds(timing.unparked_at)) if timing is not None else (np.nan, np.nan)
    if np.isnan(parked[0]) or np.isnan(parked[1]):
        return [run]
    return [(run[0], parked[0]), (parked[1], run[1])]


def _contended(jobs: pd.DataFrame, windows: pd.DataFrame) -> list[dict]:
    """Jobs whose measurement overlaps another job's run (set-up, warm-up or measurement) on one host,
    unless both were placed by the node launcher on cores and GPUs apart (then it is `shared_node`).

    A sweep under Hydra's basic launcher runs its jobs one after another, so any overlap means a
    second sweep writing into the same folder, or a parallel launcher. The overlaps are counted
    from sorted window ends (searchsorted), so the cost grows as n log n, not with the pairs; only a
    placed job that overlaps something has its overlaps looked at one by one.
    """
    jobs["overlaps"] = 0
    by_host = dict(list(windows.groupby("host")))
    for host, mine in jobs.dropna(subset=["host", "start", "end"]).groupby("host"):
        runs = by_host.get(host)
        if runs is None:
            continue
        starts, ends = np.sort(runs["run_start"].to_numpy()), np.sort(runs["run_end"].to_numpy())
        own = (mine["run_start"] < mine["end"]) & (mine["run_end"] > mine["start"])  # a job's run holds its measurement
        jobs.loc[mine.index, "overlaps"] = (np.searchsorted(starts, mine["end"].to_numpy(), "left")
                                            - np.searchsorted(ends, mine["start"].to_numpy(), "right") - own)
    jobs["beside"] = 0
    for i in jobs.index[jobs["cores"].notna() & (jobs["overlaps"] > 0)]:
        job, runs = jobs.loc[i], by_host[jobs.at[i, "host"]]
        over = runs[(runs["run_start"] < job["end"]) & (runs["run_end"] > job["start"])
                    & (runs["path"] != job["path"])]
        apart = sum(_apart(job, w) for w in over.itertuples())
        jobs.loc[i, ["overlaps", "beside"]] = [len(over) - apart, apart]
    jobs["contended"] = jobs["overlaps"] > 0
    jobs["shared_node"] = (jobs["beside"] > 0) & jobs["learning"].isna()  # a learning run's seeds pool as ever
    hit = jobs[jobs["contended"]].sort_values("path")
    return [{"path": p, "host": h, "overlaps": int(k)} for p, h, k in zip(hit["path"], hit["host"], hit["overlaps"])]


def _apart(job: pd.Series, run) -> bool:
    """Whether two jobs the node launcher placed ran on cores and GPUs apart (then not contended)."""
    if not isinstance(run.cores, frozenset) or job["cores"] & run.cores:
        return False
    return job["slot_gpu"] is None or job["slot_gpu"] != run.slot_gpu


def _shared_node(jobs: pd.DataFrame) -> list[str]:
    """Per group, how many timed jobs shared the node, where the collection has both kinds; else nothing."""
    return _mixed(jobs, jobs["shared_node"], "shared the node")


def _set_up_ahead(jobs: pd.DataFrame) -> list[str]:
    """Per group, how many timed jobs waited, set up, for their turn beside others (setup_batch: their
    `timing.parked_at`), where the collection has both kinds; else nothing. Such a job is timed alone, and
    over 16 paired rounds on two H100 starts its cells read as unbatched ones (pooled 1.009 [0.973, 1.046]),
    but one start's cells read 0.86-0.96x, another's 1-env cells 1.06-1.11x, and the grid's cells on an
    H200 0.914x over five paired rounds (docs/measuring.md)."""
    return _mixed(jobs, jobs["timing"].map(lambda t: t is not None and t.parked_at is not None),
                  "were set up ahead (setup_batch)")


def _mixed(jobs: pd.DataFrame, flag: pd.Series, did: str) -> list[str]:
    """Per group, how many timed jobs `flag` marks (`did` words it) and at which cells, where the timed
    jobs hold both kinds; else nothing."""
    timed = jobs["learning"].isna()
    if flag[timed].all() or not flag[timed].any():
        return []
    lines = []
    for g, sub in jobs[timed].groupby("group"):
        marked = sub[flag[sub.index]]
        cells = sorted(set(zip(marked["mode"], marked["num_envs"])), key=lambda c: (mode_order(c[0]), c[1]))
        shown = ", ".join(f"{m} n={n}" for m, n in cells[:CELLS_LISTED]) + (
            f" and {len(cells) - CELLS_LISTED} more" if len(cells) > CELLS_LISTED else "")
        lines.append(f"{g}: {len(marked)} of {len(sub)} jobs {did}" + (f": {shown}" if shown else ""))
    return lines


def _stretches(jobs: pd.DataFrame, windows: pd.DataFrame) -> list[str]:
    """One line per stretch of overlapping runs on a host that disturbed a measurement, with one example.

    Stretches come from one pass over the runs sorted by start (a new one begins where a run starts
    after all earlier ones ended), so the summary stays as short as the number of stretches.
    """
    if not jobs["contended"].any():
        return []
    w = windows.sort_values(["host", "run_start"]).reset_index(drop=True)
    reach = w.groupby("host")["run_end"].cummax().groupby(w["host"]).shift()
    w["stretch"] = ((w["run_start"] >= reach) | reach.isna()).cumsum()
    hit = jobs[jobs["contended"]].merge(w[["path", "stretch"]], on="path").sort_values("start")
    members = dict(list(w.groupby("stretch")))
    lines = []
    for stretch, sub in hit.groupby("stretch"):
        runs, a = members[stretch], sub.iloc[0]
        other = runs[(runs["path"] != a["path"]) & (runs["run_start"] < a["end"]) & (runs["run_end"] > a["start"])]
        lines.append(f"{a['host']}, {_iso(runs['run_start'].min())} to {_iso(runs['run_end'].max())}: "
                     f"{len(sub)} job{'s' * (len(sub) > 1)}, e.g. {a['path']} measured during {other['path'].iloc[0]}")
    return lines


def _overloaded(jobs: pd.DataFrame) -> list[str]:
    """One line per group with jobs measured while the 1-minute load exceeded the CPU count.

    The load is read just before and just after the measurement. Above the core count threads
    queue for a CPU, which slows the emulators unevenly: a speed-up between such jobs (a 9x at
    one env was measured so) says more about the load than about the modes.
    """
    jobs["overloaded"] = jobs["peak_load"] > jobs["cpus"]
    return _marked(jobs, "overloaded", lambda sub: f"load up to {sub['peak_load'].max():.1f} on "
                                                   f"{sub['cpus'].min():.0f} CPUs")


def _stolen(jobs: pd.DataFrame) -> list[str]:
    """One line per group with jobs measured while the hypervisor took more than marks.STEAL_SHARE of
    the CPUs' time (the record's `machine.scheduling.steal_share`): the guest's host was busy with other
    guests, which no load inside the guest shows, and the loop, which waits for its slowest emulator
    thread every step, slowed far more than the share (docs/measuring.md)."""
    jobs["stolen"] = jobs["steal"].map(marks.stolen)
    return _marked(jobs, "stolen", lambda sub: f"steal up to {sub['steal'].max():.1%} of the CPUs' time")


def _marked(jobs: pd.DataFrame, flag: str, worst) -> list[str]:
    """Per group with jobs that `flag` marks: how many of its jobs, the worst reading (`worst` of them)
    and at which cells."""
    sizes = jobs["group"].value_counts()
    lines = []
    for g, sub in jobs[jobs[flag]].groupby("group"):
        cells = sorted(set(zip(sub["mode"], sub["num_envs"])), key=lambda c: (mode_order(c[0]), c[1]))
        shown = ", ".join(f"{m} n={n}" for m, n in cells[:CELLS_LISTED]) + (
            f" and {len(cells) - CELLS_LISTED} more" if len(cells) > CELLS_LISTED else "")
        lines.append(f"{g}: {len(sub)} of {sizes[g]} jobs, {worst(sub)}: {shown}")
    return lines


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def count(c: Collection) -> str:
    """Every job the collection knows of, by outcome: those with a record, an unusable file, or none
    (launched, as their sweep noted, or a job folder): a table of the ok ones alone read as if none
    had failed."""
    refused = len(_refused(c))
    parts = tally(c)
    line = f"**Jobs: {sum(n for n, _ in parts)}**: " + ", ".join(f"{n} {what}" for n, what in parts if n)
    return line + (f"; {refused} of them refused by this sweep (listed below)" if refused else "")


def tally(c: Collection) -> list[tuple[int, str]]:
    """Every job by outcome, as `count` words it; the last, those with no record (`unrecorded`)."""
    return [(len(c.jobs), "ok"), (len(c.failed), "failed"), (len(c.skipped), "skipped"),
            (sum(Path(b["path"]).name != JOB_NOTES for b in c.bad), "unusable"),
            (len(unrecorded(c)), NO_RECORD)]


def unrecorded(c: Collection) -> list[dict]:
    """The jobs with no record: a job folder without result.json, or a job its sweep noted as launched
    that left none (killed, still running, or its record could not be written); not one refused for
    an earlier ok record, which its folder keeps."""
    return [n for n in c.no_result if n not in _refused(c)]


def _refused(c: Collection) -> list[dict]:
    """Jobs refused for an earlier ok record, which their folders keep (counted ok, from that record)."""
    return [n for n in c.no_result if n["reason"].startswith(REFUSED)]


def markdown(c: Collection) -> list[str]:
    """The jobs counted (`count`), then one titled list per kind of trouble, in a fixed order; a kind
    with nothing to list is left out."""
    job = lambda f: f"{f['path']} ({f['mode']}, num_envs={f['num_envs']}): {f['error']}"  # noqa: E731
    sections = [
        ("Paths not found", c.missing),
        ("Unreadable folders (not searched: result files in them are not counted)", c.unreadable),
        ("Failed jobs", [job(f) for f in c.failed]),
        ("Skipped jobs (the combination does not apply here; not failures)", [job(f) for f in c.skipped]),
        ("No record (jobs without result.json)",
         [f"{n['path']}: {n['reason']}" for n in unrecorded(c)]),
        ("Refused by this sweep (each folder keeps an earlier run's ok record, tabled as ok)",
         [f"{n['path']}: {n['reason']}" for n in _refused(c)]),
        ("Duplicates (the same measurement read twice; used once)",
         [f"{d['path']}: same measurement as {d['kept']}" for d in c.duplicates]),
        ("Unusable files", [f"{b['path']}: {b['reason']}" for b in c.bad]),
        (f"Contended: {len(c.contended)} of {len(c.jobs)} jobs were measured while another job ran on the "
         "same host (another sweep writing into this folder, a parallel launcher, or the node launcher's slots "
         "on one GPU or core); table.csv marks their rows contended", bounded(c.contention)),
        ("Shared node and alone, compared: some jobs ran beside others on their node (hydra/launcher=node, "
         "a GPU and cores of their own), the others alone; throughput compared across the two (ratios, limits, "
         "side by side, a baseline) is not like for like; table.csv marks the rows shared_node",
         bounded(c.shared_node)),
        ("Set up ahead and one after another, compared: some jobs waited, set up, for their turn beside other "
         "jobs (setup_batch), the others ran one after another; their readings agree within about 5% over "
         "paired rounds but have differed by up to a tenth on some machine starts (docs/measuring.md), so "
         "throughput compared across the two is not like for like", bounded(c.set_up_ahead)),
        ("Machine overloaded while measuring (1-minute load above the CPU count: these figures are slowed "
         "and ratios between them unreliable; table.csv marks the rows overloaded)", bounded(c.overloaded)),
        (f"CPU time stolen while measuring (the hypervisor took over {marks.STEAL_SHARE:.0%} of the CPUs' time: "
         "the host was busy with other machines, these figures are slowed and ratios between them unreliable; "
         "table.csv marks the rows stolen)", bounded(c.stolen)),
        ("Machine-state warnings", bounded(c.machine_warnings)),
    ]
    return [count(c), ""] + [line for title, items in sections if items
                             for line in [f"**{title}**", "", *(f"- {i}" for i in items), ""]]
