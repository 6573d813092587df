"""report.html in a real browser: committed GPU results collected, the page opened offline in headless
chromium, every figure drawn and holding the collector's own numbers; and without the browser, when
the page is written and linked and that it asks for nothing over the network.

The browser is Debian's chromium (`apt-get install chromium`; .ci/run installs it), driven by Playwright
without `playwright install`; where it is missing the browser tests are skipped, saying so.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest

from ppo_bench.collect import collect
from ppo_bench.collect.figures import NUDGE
from test_collect import write

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results" / "2026-11-30-h200"
# Committed sweeps (real data, quick to collect) and the figures each must have, at least.
CASES = {
    "limits": {"chart-throughput", "chart-speedup", "chart-efficiency", "chart-runtimes"},
    "backends": {"chart-throughput", "chart-backends"},
    "learn_run3": {"chart-throughput", "chart-speedup", "chart-returns-env-steps", "chart-returns-wall-s"},
}


def chromium() -> str | None:
    found = shutil.which("chromium") or "/usr/bin/chromium"
    return found if Path(found).exists() else None


@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("plotly")
    pytest.importorskip("matplotlib")
    sync_api = pytest.importorskip("playwright.sync_api")
    path = chromium()
    if path is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run installs it)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module", params=sorted(CASES))
def summary(request, tmp_path_factory):
    """A committed sweep collected with the figures on: (its name, the out dir)."""
    pytest.importorskip("plotly")
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp(request.param)
    assert collect([RESULTS / request.param], out_dir=out).ok
    return request.param, out


def expected_ids(name: str, out: Path) -> set[str]:
    """The figures the collector's own files call for (and the case's minimum)."""
    t = pd.read_csv(out / "table.csv")
    loops = t[~t["mode_name"].isin(["env_only", "agent_only"])]
    ids = {"chart-throughput"}
    ids |= {"chart-speedup"} if loops["speedup"].notna().any() else set()
    ids |= {"chart-efficiency"} if loops["bound"].notna().any() else set()
    ids |= {f"chart-{c}s" for c in ("backend", "runtime") if (out / f"{c}s.csv").exists()}
    ids |= {"chart-returns-env-steps", "chart-returns-wall-s"} if (out / "returns.json").exists() else set()
    assert CASES[name] <= ids
    return ids


def close(a, b) -> bool:
    """Equal figures, None for a gap on either side (JSON's null, pandas' NaN)."""
    if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
        return a is None and (b is None or math.isnan(b))
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def same(xs, ys) -> bool:
    return len(xs) == len(ys) and all(close(a, b) for a, b in zip(xs, ys))


TRACES = """id => document.getElementById(id).data.map(t => ({
    name: t.name, meta: t.meta, x: Array.from(t.x), y: Array.from(t.y),
    up: t.error_y ? Array.from(t.error_y.array) : null, down: t.error_y ? Array.from(t.error_y.arrayminus) : null}))"""


def check_rows(traces, t, kind, y, lo=None, hi=None, nudge=1.0):
    """Each trace of `kind` equals its rows of table.csv (group x mode), and every such row is drawn."""
    drawn = [tr for tr in traces if tr["meta"].get("kind") == kind]
    want = t[t[y].notna()]
    assert {(tr["meta"]["group"], tr["meta"]["mode"]) for tr in drawn} == set(zip(want["group"], want["mode"]))
    for tr in drawn:
        rows = want[(want["group"] == tr["meta"]["group"]) & (want["mode"] == tr["meta"]["mode"])]
        rows = rows.sort_values("num_envs")
        assert same(tr["x"], list(rows["num_envs"] * nudge)) and same(tr["y"], list(rows[y])), tr["name"]
        if lo is not None:
            has = rows[lo].notna().to_numpy()
            assert same([v + u for v, u, h in zip(tr["y"], tr["up"], has) if h], list(rows[hi][has]))
            assert same([v - d for v, d, h in zip(tr["y"], tr["down"], has) if h], list(rows[lo][has]))
    return len(drawn)


def test_report_page_in_chromium(browser, summary):
    name, out = summary
    ids = expected_ids(name, out)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, failed, requests = [], [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("request", lambda r: requests.append(r.url))
    page.goto((out / "report.html").as_uri())
    page.wait_for_function("ids => ids.every(id => document.querySelector('#' + id + ' .main-svg'))",
                           arg=sorted(ids))
    assert set(page.evaluate("Array.from(document.querySelectorAll('.plotly-graph-div')).map(d => d.id)")) == ids
    for div in ids:
        box = page.evaluate("id => { const r = document.querySelector('#' + id + ' .main-svg')"
                            ".getBoundingClientRect(); return [r.width, r.height]; }", div)
        assert box[0] > 300 and box[1] > 200, (div, box)

    t = pd.read_csv(out / "table.csv")
    thr = page.evaluate(TRACES, "chart-throughput")
    assert check_rows(thr, t, "mean", "mean", "lo", "hi") == t.groupby(["group", "mode"]).ngroups
    for tr in (tr for tr in thr if tr["meta"]["kind"] == "limit"):
        rows = t[(t["group"] == tr["meta"]["group"]) & (t["groups"] == tr["meta"]["groups"]) & t["limit"].notna()]
        assert same(tr["y"], list(rows.drop_duplicates("num_envs").sort_values("num_envs")["limit"]))
    loops = t[~t["mode_name"].isin(["env_only", "agent_only"])]
    if "chart-speedup" in ids:
        sp = page.evaluate(TRACES, "chart-speedup")
        assert check_rows(sp, loops, "speedup", "speedup", "speedup_lo", "speedup_hi") > 0
        check_rows(sp, loops, "paired_speedup", "paired_speedup", "paired_lo", "paired_hi", nudge=NUDGE)
    if "chart-efficiency" in ids:
        eff = page.evaluate(TRACES, "chart-efficiency")
        assert check_rows(eff, loops, "bound_efficiency", "bound_efficiency") > 0
        check_rows(eff, loops, "bound_efficiency_paired", "bound_efficiency_paired", "bound_efficiency_lo",
                   "bound_efficiency_hi", nudge=NUDGE)
    for column in ("backend", "runtime"):
        if f"chart-{column}s" in ids:
            b = pd.read_csv(out / f"{column}s.csv")
            drawn = page.evaluate(TRACES, f"chart-{column}s")
            for tr in drawn:
                v, kind = tr["meta"]["value"], tr["meta"]["kind"]
                assert same(tr["y"], list(b[f"{v}_{kind}"])), tr["name"]
            assert {tr["meta"]["value"] for tr in drawn if tr["meta"]["kind"] == "mean"} == {
                c.removesuffix("_mean") for c in b.columns if c.endswith("_mean")}
    if "chart-returns-env-steps" in ids:
        confs = json.loads((out / "returns.json").read_text())["configurations"]
        for x in ("env_steps", "wall_s"):
            drawn = page.evaluate(TRACES, f"chart-returns-{x.replace('_', '-')}")
            assert len(drawn) == sum(len(c["seeds"]) + 1 for c in confs)
            runs = {c["label"]: iter(c["seeds"]) for c in confs}  # in order: a seed may have run twice
            for tr in drawn:
                conf = next(c for c in confs if c["label"] == tr["meta"]["label"])
                if tr["meta"]["seed"] == "iqm":
                    assert same(tr["x"], conf[f"iqm_vs_{x}"][x]) and same(tr["y"], conf[f"iqm_vs_{x}"]["return"])
                else:
                    s = next(runs[conf["label"]])
                    assert s["seed"] == tr["meta"]["seed"]
                    assert same(tr["x"], s[x]) and same(tr["y"], s["return_mean"])

    md = (out / "table.md").read_text()
    headers = [line for line, nxt in zip(md.splitlines(), md.splitlines()[1:]) if nxt.startswith("|---")]
    shown = page.evaluate("Array.from(document.querySelectorAll('#tables table')).map(t => "
                          "Array.from(t.querySelectorAll('th')).map(h => h.textContent))")
    assert shown == [[h.strip() for h in line.strip().strip("|").split("|")] for line in headers]
    assert page.evaluate("document.querySelectorAll('#tables td').length") > 3 * len(headers)
    if "**Contended" in md:
        assert "contended jobs" in page.inner_text("#flags") and "Contended:" in page.inner_text("#tables")
    assert not errors and not failed
    assert requests and all(u.startswith("file:") or u.startswith("data:") for u in requests), requests
    page.close()


def small(root: Path) -> Path:
    for mode, reps in (("step", [100.0, 104.0, 96.0]), ("sendrecv", [150.0, 160.0, 140.0])):
        for n in (1, 8):
            write(root, f"{mode}-{n}", mode=mode, n=n, reps=[r * n for r in reps])
    return root


def test_no_page_and_no_link_without_the_plot_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # the PNGs' condition: no plot extra, no page
    collect([small(tmp_path / "runs")], out_dir=tmp_path / "out")
    assert not (tmp_path / "out" / "report.html").exists()
    assert "report.html" not in (tmp_path / "out" / "table.md").read_text()
    collect([tmp_path / "runs"], out_dir=tmp_path / "plain", plot=False)
    assert not (tmp_path / "plain" / "report.html").exists()


def test_no_page_without_plotly(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    monkeypatch.setitem(sys.modules, "plotly", None)
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)
    collect([small(tmp_path / "runs")], out_dir=tmp_path / "out")
    assert not (tmp_path / "out" / "report.html").exists()
    assert "report.html skipped: plotly is not importable (pip install 'ppo-bench[plot]')" in capsys.readouterr().err
    assert (tmp_path / "out" / "throughput.png").exists()


def test_page_written_linked_listed_and_offline(tmp_path):
    pytest.importorskip("plotly")
    pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    c = collect([small(tmp_path / "runs")], out_dir=out)
    md = (out / "table.md").read_text()
    assert md.splitlines()[0] == "Charts: [report.html](report.html)" and md.endswith(c.markdown)
    page = (out / "report.html").read_text()
    assert json.loads((out / ".collect.json").read_text())["files"].keys() >= {"report.html", "table.md"}
    assert not re.search(r"""<(script|link|img|iframe)[^>]*(src|href)\s*=\s*["']?(https?:)?//""", page, re.I)
    assert page.count("Plotly.newPlot") == len(re.findall(r'<div id="chart-[\w-]+"', page)) == 2  # throughput, speed-up
    assert len(re.findall(r"plotly\.js v\d", page)) == 1  # plotly.js embedded once
    assert "<table>" in page and "sendrecv/step" in page
    collect([tmp_path / "runs"], out_dir=out, plot=False)  # a later collection without the figures removes it
    assert not (out / "report.html").exists() and "report.html" not in (out / "table.md").read_text()
