"""The report page's frame: what was measured where (provenance), the warnings counted by reason, and
links to the files the figures come from.

Provenance is read from the result files the collection used (their `provenance`, `machine` and
`timing` records): the Collection keeps only what its tables need, and a reader of the page needs
the rest to trust a figure (which commit ran, with which command and versions, on which CPU and
GPU, at what load). Each field shows its distinct values, the most common first, with how many
jobs had each. Warnings are counts at the top of the page, failed and skipped jobs counted by
their reason (a sweep's grid makes dozens of combinations that do not apply, and a list of their
paths said nothing the reason does not); the full lists stay in table.md, at the foot of the page.
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path

from ppo_bench.record import marks
from ppo_bench.registry import BACKENDS
from .common import FLAG_COLUMNS
from .load import Collection

LISTED = 4  # distinct values shown per provenance field; the rest are counted
SHORT = 48  # characters of a configuration's words in a link; the rest in its title
VERSIONS = ("python", "torch", "ale_py", "numpy", "cuda",
            *dict.fromkeys(v.replace("-", "_") for b in BACKENDS for v in b.versions))  # each backend's packages


def _records(c: Collection) -> list[dict]:
    """The parts of each used record the panel reads, from the collection's rows (a record packed in an
    archive has no file of its own to read again)."""
    if c.jobs.empty:
        return []
    return [{"provenance": row.provenance or {}, "machine": row.machine or {},
             "timing": {"started_at": row.started_at, "finished_at": row.finished_at}}
            for row in c.jobs.itertuples()]


def _distinct(values, total: int) -> list[str]:
    """A field's distinct values, the most common first, each with its count of jobs where not all had it."""
    counts = Counter(str(v) for v in values if v not in (None, ""))
    if not counts:
        return ["not recorded"]
    shown = [v if len(counts) == 1 and counts[v] == total else f"{v} ({k} job{'s' * (k > 1)})"
             for v, k in counts.most_common(LISTED)]
    more = len(counts) - LISTED
    return shown + ([f"and {more} more"] if more > 0 else [])


def _loads(rec: dict) -> list[float]:
    m = rec.get("machine") or {}
    return [x for x in ((m.get(w) or {}).get("load_1m") for w in ("before", "after")) if isinstance(x, (int, float))]


def provenance(c: Collection) -> str:
    """A definition list of commit, command, versions, machine and load over the jobs used."""
    recs = _records(c)
    if not recs:
        return ""
    n = len(recs)
    prov = [r.get("provenance") or {} for r in recs]
    commit = [(p.get("git_commit") or "")[:12] + (" with uncommitted changes" if p.get("git_dirty") else "")
              for p in prov]
    command = ["python " + " ".join(p["argv"]) if isinstance(p.get("argv"), list) else None for p in prov]
    versions = ["; ".join(f"{k} {' / '.join(_distinct([p.get(k) for p in prov], n))}" for k in VERSIONS
                          if any(p.get(k) for p in prov)) or "not recorded"]
    loads = [x for r in recs for x in _loads(r)]
    cpus = sorted({p.get("cpu_count") for p in prov if p.get("cpu_count")})
    load = (f"1-minute load {min(loads):.1f} to {max(loads):.1f} before and after the measurements"
            + (f", on {', '.join(map(str, cpus))} CPUs" if cpus else "")) if loads else "not recorded"
    times = sorted(t for r in recs for t in ((r.get("timing") or {}).get(k) for k in ("started_at", "finished_at"))
                   if t)
    fields = [("jobs", [f"{n} result files used"]),
              ("when (UTC)", [f"{times[0][:19].replace('T', ' ')} to {times[-1][:19].replace('T', ' ')}" if times
                              else "not recorded"]),
              ("commit", _distinct(commit, n)), ("command", _distinct(command, n)), ("versions", versions),
              ("GPU", _distinct([p.get("gpu") or "none" for p in prov], n)),
              ("CPU", _distinct([p.get("cpu_model") for p in prov], n)),
              ("host", _distinct([p.get("host") for p in prov], n)),
              ("platform", _distinct([p.get("platform") for p in prov], n)), ("load", [load])]
    return ('<section id="provenance"><h2>Provenance</h2><dl class="prov">'
            + "".join(f"<dt>{html.escape(k)}</dt><dd>{'<br>'.join(map(html.escape, v))}</dd>" for k, v in fields)
            + "</dl></section>")


def _reason(error) -> str:
    return str(error or "no reason given").strip()


def warnings(c: Collection) -> str:
    """The warnings table.md lists, counted in one box; failed and skipped jobs counted by reason."""
    kinds = [("jobs marked (contended), another job ran on their host", len(c.contended)),
             ("machine-state warnings on compared jobs", len(c.machine_warnings)),
             ("unusable files", len(c.bad)), ("duplicates", len(c.duplicates)),
             ("job folders without a result", len(c.no_result)), ("paths not found", len(c.missing)),
             ("unreadable folders", len(c.unreadable)), ("learning warnings", len(c.learning_warnings))]
    if not c.table.empty:
        kinds += [(f"rows marked ({m}), {marks.MEANING[m]}", int(c.table[col].fillna(False).astype(bool).sum()))
                  for m, col in FLAG_COLUMNS.items() if m != marks.CONTENDED and col in c.table]
        if "bound_efficiency" in c.table:
            kinds += [("rows that beat their bound", int((c.table["bound_efficiency"] > 1).sum()))]
    items = [f"<li>{html.escape(what)}: {k}</li>" for what, k in kinds if k]
    for what, jobs in (("failed jobs", c.failed), ("skipped jobs (do not apply)", c.skipped)):
        if jobs:
            reasons = Counter(_reason(j.get("error")) for j in jobs)
            folded = "".join(f"<li>{k} &times; {html.escape(r)}</li>" for r, k in reasons.most_common())
            items.append(f"<li>{what}: {len(jobs)}, by reason:<ul>{folded}</ul></li>")
    if not items:
        return '<div class="flags clear" id="flags">No warnings: nothing failed, contended, overloaded or stolen.</div>'
    return ('<div class="flags" id="flags"><b>Warnings</b> (listed in full under '
            f'<a href="#tables">Tables and warnings</a>):<ul>{"".join(items)}</ul></div>')


def links(c: Collection, out: Path) -> str:
    """Links to the files beside the page that hold its figures, those that exist; a configuration's
    own chart.json named by its panel in words."""
    from . import panels, throughput

    names = ["table.csv", "table.md", "chart.json", "side_by_side.json", "backends.csv", "runtimes.csv",
             "returns.csv", "returns.json", "phases.csv", "interleaved.csv"]
    found = [(n, n) for n in names if (out / n).exists() or n == "table.md"]
    groups = sorted(c.table["group"].unique()) if not c.table.empty and len(c.table["group"].unique()) > 1 else []
    where = panels.places(groups)
    for g in groups:
        rel = f"{throughput.slug(g)}/chart.json"
        if (out / rel).exists():
            words = ", ".join(w for w in (where[g].panel, where[g].schedule) if w) or g
            found.append((rel, f"chart.json ({words[:SHORT] + '…' * (len(words) > SHORT)})", words))
    return ('<p class="files">Files: ' + " · ".join(
        f'<a href="{html.escape(f[0])}"' + (f' title="{html.escape(f[2])}"' if len(f) > 2 else "")
        + f">{html.escape(f[1])}</a>" for f in found) + "</p>")
