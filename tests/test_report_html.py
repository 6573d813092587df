"""report.html in a real browser: committed GPU results collected, the page opened offline in headless
chromium, every figure drawn and holding the collector's own numbers, its headline equal to table.csv
and returns.csv, no interval below zero, one colour per mode on two pages, no title over another at
800 px, at most 1.5 MB; and without the browser, when the page is written and linked, that it asks for
nothing over the network, and how its panels and names are chosen.

The browser is Debian's chromium (`apt-get install chromium`; .ci/run installs it), driven by Playwright
without `playwright install`; where it is missing the browser tests are skipped, saying so. Expected
throughput intervals are worked out here from the formula (t-interval on log reps), not by the
collector's functions.
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
from scipy.stats import t as student_t

from ppo_bench.collect import collect
from ppo_bench.collect.curves import aggregate_name
from ppo_bench.collect.figures import NUDGE
from test_collect import write

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results" / "2026-11-30-h200"
MAX_BYTES = 1_500_000
# Committed sweeps (real data, quick to collect): (paths, baseline) and the charts each must have, at least.
CASES = {
    "runtimes": ((["limits", "l256", "l256b"], None), {"chart-throughput", "chart-speedup", "chart-runtimes"}),
    "backends": ((["backends"], None), {"chart-throughput", "chart-backends"}),
    "learn_run3": ((["learn_run3"], None), {"chart-throughput", "chart-returns-env-steps", "chart-returns-wall-s"}),
    "baseline": ((["limits_paired"], "limits"), {"chart-throughput", "chart-runtimes", "chart-baseline"}),
}
RATIO_CHARTS = ("chart-throughput", "chart-speedup", "chart-backends", "chart-runtimes", "chart-baseline")


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


@pytest.fixture(scope="module")
def summaries(tmp_path_factory):
    """Each committed case collected with the figures on, once: {name: out dir}."""
    pytest.importorskip("plotly")
    pytest.importorskip("matplotlib")
    made = {}
    for name, ((paths, base), _) in CASES.items():
        out = tmp_path_factory.mktemp(name)
        assert collect([RESULTS / p for p in paths], out_dir=out,
                       baseline=None if base is None else RESULTS / base).ok
        made[name] = out
    return made


def opened(browser, out: Path, width: int):
    """The page at `width` px, every figure drawn; and what it logged and asked for."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    log = {"errors": [], "requests": []}
    page.on("console", lambda m: log["errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: log["errors"].append(str(e)))
    page.on("request", lambda r: log["requests"].append(r.url))
    page.goto((out / "report.html").as_uri())
    page.wait_for_function("Array.from(document.querySelectorAll('div.plot')).every(d => d.querySelector('.main-svg'))")
    return page, log


TRACES = """prefix => Array.from(document.querySelectorAll('div.plot')).filter(d => d.id.startsWith(prefix + '-'))
  .flatMap(d => d.data.map(t => ({div: d.id, mode: t.mode, meta: t.meta, fill: t.fill || null,
    x: Array.from(t.x || []), y: Array.from(t.y || []),
    colour: (t.line && t.line.color) || (t.marker && t.marker.color) || null,
    symbols: t.marker && Array.isArray(t.marker.symbol) ? Array.from(t.marker.symbol) : null,
    up: t.error_y ? Array.from(t.error_y.array) : null, down: t.error_y ? Array.from(t.error_y.arrayminus) : null})))"""
TRACES_COUNTED = TRACES.replace("colour:", "counts: Array.from(t.customdata || []), colour:")


def close(a, b, tol=1e-9) -> bool:
    """Equal figures, a gap (JSON's null, pandas' NaN) equal only to a gap."""
    a, b = (None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in (a, b))
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def same(xs, ys, tol=1e-9) -> bool:
    return len(xs) == len(ys) and all(close(a, b, tol) for a, b in zip(xs, ys))


def log_ci(reps: list[float], mean: float) -> tuple:
    """The 95% t-interval on the log reps, exponentiated and stretched to the mean, written out (none for
    one rep)."""
    logs = [math.log(x) for x in reps]
    k, m = len(logs), sum(logs) / len(logs)
    if k < 2:
        return None, None
    half = student_t.ppf(0.975, k - 1) * math.sqrt(sum((x - m) ** 2 for x in logs) / (k - 1)) / math.sqrt(k)
    return min(math.exp(m - half), mean), max(math.exp(m + half), mean)


def keyed(t: pd.DataFrame) -> dict:
    return {(r["group"], r["mode"], int(r["num_envs"])): r for r in t.to_dict("records")}


def drawn_points(traces, kind):
    """(row key, x, y, up, down) of every point of the traces of `kind`."""
    for tr in (tr for tr in traces if tr["meta"]["kind"] == kind):
        for i, (key, x, y) in enumerate(zip(tr["meta"]["rows"], tr["x"], tr["y"])):
            yield tuple(key), x, y, tr["up"][i] if tr["up"] else None, tr["down"][i] if tr["down"] else None


def check_ratios(traces, rows: dict, kind, lo, hi, nudge=1.0) -> int:
    """Each point of `kind` equals its row's column `kind` with its interval; every row with one is drawn."""
    seen = set()
    for key, x, y, up, down in drawn_points(traces, kind):
        r = rows[key]
        assert close(x, key[2] * nudge) and close(y, r[kind]), (kind, key)
        if not pd.isna(r[lo]):
            assert close(y + up, r[hi]) and close(y - down, r[lo]), (kind, key)
        seen.add(key)
    assert seen == {k for k, r in rows.items() if not pd.isna(r[kind])}, kind
    return len(seen)


@pytest.mark.parametrize("name", sorted(CASES))
def test_page_in_chromium(browser, summaries, name):
    out = summaries[name]
    page, log = opened(browser, out, 1280)
    divs = page.evaluate("Array.from(document.querySelectorAll('div.plot')).map(d => d.id)")
    charts = {re.sub(r"-\d+$", "", d) for d in divs}
    assert CASES[name][1] <= charts, charts
    for div in divs:
        box = page.evaluate("id => { const r = document.querySelector('#' + id + ' .main-svg')"
                            ".getBoundingClientRect(); return [r.width, r.height]; }", div)
        assert box[0] > 300 and box[1] > 200, (div, box)

    # the vendored bundle knows every trace type and attribute the figures use (it refuses, say, scattergl)
    assert page.evaluate("""() => Object.values(JSON.parse(document.getElementById('figures').textContent))
      .map(f => Plotly.validate(f.data, f.layout)).filter(e => e)""") == []
    assert page.evaluate("Plotly.validate([{type: 'scattergl', x: [1]}], {})")

    t = pd.read_csv(out / "table.csv")
    rows = keyed(t)
    thr = page.evaluate(TRACES, "chart-throughput")
    seen = set()
    for key, x, y, up, down in drawn_points(thr, "mean"):  # table.csv's mean, t-interval on log reps
        lo, hi = log_ci(json.loads(rows[key]["reps"]), rows[key]["mean"])
        assert close(x, key[2]) and close(y, rows[key]["mean"]), key
        if lo is not None:
            assert close(y + up, hi) and close(y - down, lo), key
            assert close(lo, rows[key]["lo"]) and close(hi, rows[key]["hi"]), key  # table.csv's own interval
        seen.add(key)
    assert seen == set(rows), "every row of table.csv is drawn once"
    reps: dict = {}
    for key, x, y, *_ in drawn_points(thr, "reps"):  # every rep a dot, near its num_envs
        reps.setdefault(key, []).append(y)
        assert key[2] * 0.85 < x < key[2] * 1.15
    assert {k: sorted(v) for k, v in reps.items()} == {k: sorted(json.loads(r["reps"])) for k, r in rows.items()}
    flagged = {k for k, r in rows.items() if any(r.get(f) is True for f in ("contended", "overloaded", "stolen", "shared_node"))}
    assert {k for k, *_ in drawn_points(thr, "flag")} == flagged  # ringed
    if name == "learn_run3":
        assert flagged
    bounds = {k for k, r in rows.items() if not pd.isna(r["bound"])}
    assert {k for k, *_ in drawn_points(thr, "bound")} == bounds
    assert all(close(y, rows[k]["bound"]) for k, _, y, *_ in drawn_points(thr, "bound"))
    loops = {k: r for k, r in rows.items() if r["mode_name"] not in ("env_only", "agent_only")}
    probed = {k[0] for k, r in rows.items() if r["mode_name"] in ("env_only", "agent_only")}
    opened_points = {tuple(k) for tr in thr if tr["meta"]["kind"] == "mean" and tr["symbols"]
                     for k, sym in zip(tr["meta"]["rows"], tr["symbols"]) if sym.endswith("-open")}
    assert {k for k in loops if k not in bounds and k[0] in probed} <= opened_points  # no bound: drawn open
    assert not opened_points & bounds
    if "chart-speedup" in charts:
        sp = page.evaluate(TRACES, "chart-speedup")
        assert check_ratios(sp, loops, "speedup", "speedup_lo", "speedup_hi") > 0
        check_ratios(sp, loops, "paired_speedup", "paired_lo", "paired_hi", nudge=NUDGE)
    if "chart-baseline" in charts:
        assert check_ratios(page.evaluate(TRACES, "chart-baseline"), rows, "baseline_ratio", "baseline_lo",
                            "baseline_hi") > 0
    for column in ("backend", "runtime"):
        if f"chart-{column}s" in charts:
            b = pd.read_csv(out / f"{column}s.csv")
            drawn = page.evaluate(TRACES, f"chart-{column}s")
            for o in {tr["meta"]["value"] for tr in drawn}:
                values = {(r["configuration"], r["mode"], int(r["num_envs"])): r for r in b.to_dict("records")}
                values = {k: {"ratio": r[f"{o}_ratio"], "lo": r[f"{o}_lo"], "hi": r[f"{o}_hi"],
                              "paired": r[f"{o}_paired"], "plo": r[f"{o}_paired_lo"], "phi": r[f"{o}_paired_hi"]}
                          for k, r in values.items()}
                mine = [dict(tr, meta={**tr["meta"], "kind": tr["meta"]["kind"].removeprefix(f"{o}_")})
                        for tr in drawn if tr["meta"]["value"] == o]
                assert check_ratios(mine, values, "ratio", "lo", "hi") > 0
                check_ratios(mine, values, "paired", "plo", "phi", nudge=NUDGE)
    for chart in RATIO_CHARTS:  # no interval below zero, nothing at or below zero on a rate or a ratio
        for tr in page.evaluate(TRACES, chart):
            assert all(v is None or v > 0 for v in tr["y"]), (chart, tr["meta"])
            if tr["down"]:
                assert all(v - d > 0 for v, d in zip(tr["y"], tr["down"]) if v is not None), (chart, tr["meta"])

    headline = page.evaluate("""() => Array.from(document.querySelectorAll('#headline-throughput tbody tr'))
      .map(r => ({group: r.dataset.group, mode: r.dataset.mode, n: +r.dataset.numEnvs,
                  members: JSON.parse(r.dataset.groups),
                  thr: r.querySelector('td.thr').dataset.value, speedup: r.querySelector('td.speedup').dataset.value,
                  bound: r.querySelector('td.bound') ? r.querySelector('td.bound').dataset.value : 'none',
                  baseline: r.querySelector('td.baseline') ? r.querySelector('td.baseline').dataset.value
                                                           : 'none'}))""")
    assert headline, "a headline for the timed loops"
    for h in headline:
        r = rows[(h["group"], h["mode"], h["n"])]
        rivals = [x["mean"] for k, x in loops.items() if k[0] in h["members"] and k[2] == h["n"]]
        assert close(float(h["thr"]), r["mean"]) and close(float(h["thr"]), max(rivals))
        assert close(float(h["speedup"]), r["speedup"])
        assert close(float(h["bound"]), r["bound_efficiency"]) if h["bound"] != "none" else t["bound"].isna().all()
        if name == "baseline":  # a column of its ratio to the baseline, as table.csv states it
            assert close(float(h["baseline"]), r["baseline_ratio"])
        else:
            assert h["baseline"] == "none"
    assert {(g, n) for g, _, n in loops} <= {(g, h["n"]) for h in headline for g in h["members"]}  # every cell
    assert len(headline) == len({(json.dumps(h["members"]), h["n"]) for h in headline})  # once

    if "chart-returns-env-steps" in charts:
        returns = pd.read_csv(out / "returns.csv")
        confs = {(c["group"], c["mode"], c["num_envs"]): c
                 for c in json.loads((out / "returns.json").read_text())["configurations"]}
        for x in ("env_steps", "wall_s"):
            drawn = page.evaluate(TRACES_COUNTED, f"chart-returns-{x.replace('_', '-')}")
            for r in returns.to_dict("records"):
                key = (r["group"], r["mode"], r["num_envs"])
                mine = [tr for tr in drawn if tr["meta"]["kind"] != "seed"
                        and (tr["meta"]["group"], tr["meta"]["mode"], tr["meta"]["num_envs"]) == key]
                aggs, iqm = [tr for tr in mine if tr["meta"]["kind"] == "aggregate"], confs[key][f"iqm_vs_{x}"]
                mine = {tr["meta"]["kind"]: tr for tr in mine}
                for agg in aggs:  # each part named for the seeds it is over
                    assert {aggregate_name(k) for k in agg["counts"]} == {agg["meta"]["name"]}
                assert aggs[-1]["meta"]["name"] == aggregate_name(r["seeds"])  # it ends over the finished seeds
                points = [(a, b, k) for tr in aggs for a, b, k in zip(tr["x"], tr["y"], tr["counts"])]
                held = [(a, b, k) for a, b, k in zip(iqm[x], iqm["return"], iqm["seeds"]) if k is not None]
                assert len(points) == len(held) and all(  # returns.json's IQM curve, drawn as it is
                    close(a[0], b[0], 0.006) and close(a[1], b[1], 0.006) and a[2] == b[2]
                    for a, b in zip(points, held))
                lows, highs = mine["band_min"]["y"], mine["band_max"]["y"]
                assert mine["band_min"]["fill"] == "tonexty" and same(mine["band_min"]["x"], iqm[x], 0.006)
                band = {round(a, 2): (lo, hi) for a, lo, hi in zip(mine["band_min"]["x"], lows, highs)}
                assert all(band[round(a, 2)][0] <= b + 1e-9 <= band[round(a, 2)][1] + 2e-9 for a, b, _ in points)
                col = "env_steps_to_target_per_seed" if x == "env_steps" else "time_to_target_per_seed"
                hit = sorted(v for v in json.loads(r[col]) if v is not None)
                assert sorted(mine["target"]["x"]) == pytest.approx(hit) if hit else "target" not in mine
        rows_l = page.evaluate("""() => Array.from(document.querySelectorAll('#headline-learning tbody tr'))
          .map(r => ({group: r.dataset.group, mode: r.dataset.mode, n: +r.dataset.numEnvs,
                      time: r.querySelector('td.time').dataset.value, steps: r.querySelector('td.steps').dataset.value,
                      final: r.querySelector('td.final').dataset.value}))""")
        assert len(rows_l) == len(returns)
        by = {(r["group"], r["mode"], r["num_envs"]): r for r in returns.to_dict("records")}
        for h in rows_l:
            r = by[(h["group"], h["mode"], h["n"])]
            for cell, col in (("time", "time_to_target_median"), ("steps", "env_steps_to_target_median"),
                              ("final", "final_iqm")):
                assert float(h[cell]) == pytest.approx(r[col]) or (math.isinf(r[col]) and h[cell] == "inf"), cell

    md = (out / "table.md").read_text()
    headers = [line for line, nxt in zip(md.splitlines(), md.splitlines()[1:]) if nxt.startswith("|---")]
    shown = page.evaluate("Array.from(document.querySelectorAll('#tables table')).map(t => "
                          "Array.from(t.querySelectorAll('th')).map(h => h.textContent))")
    assert shown == [[h.strip() for h in line.strip().strip("|").split("|")] for line in headers]
    assert page.evaluate("document.querySelectorAll('#tables td').length") > 3 * len(headers)
    lists = page.evaluate("Array.from(document.querySelectorAll('#tables ul')).map(u => "
                          "[u.children.length, !!u.closest('details')])")
    assert all(folded for k, folded in lists if k > 6) and not any(folded for k, folded in lists if k <= 6)
    if name == "runtimes":  # 40 refusals an older runner recorded as failed, 3 reasons: skipped, counted by reason
        assert any(k >= 20 for k, _ in lists) and page.inner_text("#flags").count(" × NotApplicable") == 3
        assert "skipped jobs (do not apply): 40" in page.inner_text("#flags")
        assert "failed jobs" not in page.inner_text("#flags")
    assert not log["errors"]
    assert all(u.startswith(("file:", "data:")) for u in log["requests"]), log["requests"]
    assert (out / "report.html").stat().st_size <= MAX_BYTES
    page.close()


@pytest.mark.parametrize("name", ["runtimes", "learn_run3"])
def test_readable_at_800_px(browser, summaries, name):
    """No heading or axis title over another, nothing wider than the window."""
    page, _ = opened(browser, summaries[name], 800)
    titles = "h1, h2, h3, .g-xtitle, .g-ytitle, .gtitle, .annotation-text"
    boxes = page.evaluate("""sel => Array.from(document.querySelectorAll(sel))
      .map(e => { const r = e.getBoundingClientRect();
                  return [e.textContent.slice(0, 50), r.left + scrollX, r.top + scrollY, r.right + scrollX,
                          r.bottom + scrollY]; })
      .filter(b => b[3] > b[1] && b[4] > b[2])""", titles)
    assert len(boxes) > 10
    for i, a in enumerate(boxes):
        assert a[3] <= 800, a
        for b in boxes[i + 1:]:
            assert a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2], (a, b)
    assert page.evaluate("document.documentElement.scrollWidth") <= 800
    page.close()


def test_a_mode_has_one_colour_on_two_pages(browser, summaries):
    colours: dict[str, set] = {}
    for name in ("runtimes", "learn_run3", "backends"):
        page, _ = opened(browser, summaries[name], 1280)
        for chart in ("chart-throughput", "chart-speedup", "chart-returns-env-steps"):
            for tr in page.evaluate(TRACES, chart):
                if tr["meta"].get("mode_name") and tr["colour"]:
                    colours.setdefault(tr["meta"]["mode_name"], set()).add(tr["colour"].lower())
        page.close()
    assert {"step", "async", "env_only"} <= colours.keys()
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len({next(iter(c)) for c in colours.values()}) == len(colours), "two modes share a colour"


def small(root: Path, sched=None) -> Path:
    for mode, reps in (("step", [100.0, 104.0, 96.0]), ("sendrecv", [150.0, 160.0, 140.0])):
        for n in (1, 8):
            write(root, f"{mode}-{n}", mode=mode, n=n, reps=[r * n for r in reps], sched_extra=sched)
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
    figures = json.loads(re.search(r'<script type="application/json" id="figures">(.*?)</script>', page, re.S)[1])
    assert set(figures) == set(re.findall(r'<div id="(chart-[\w-]+)" class="plot">', page))
    assert {re.sub(r"-\d+$", "", k) for k in figures} == {"chart-throughput", "chart-speedup"}
    assert page.count("plotly.js (basic - minified) v") == 1 and page.count("Plotly.newPlot") == 1  # embedded once
    assert len(page.encode()) <= MAX_BYTES
    assert "<table>" in page and "<th>sendrecv/<wbr>step</th>" in page and 'href="table.csv"' in page
    assert 'id="provenance"' in page and "abc" in page  # the records' commit
    collect([tmp_path / "runs"], out_dir=out, plot=False)  # a later collection without the figures removes it
    assert not (out / "report.html").exists() and "report.html" not in (out / "table.md").read_text()


def test_schedules_alone_merge_into_one_panel_named_in_words(tmp_path):
    """Runs that differ only in schedule.bench_steps join one curve per mode, in one panel; runtimes get a
    panel each, titled in words, and a mode is named one way in both."""
    from ppo_bench.collect import view

    for runtime in ("compiled", "eager"):
        agent = {"name": "nature_cnn", "runtime": runtime, "num_steps": 128}
        for n, steps in ((1, 500), (8, 500), (256, 400)):
            for mode in ("step", "env_only"):
                write(tmp_path / "runs", f"{runtime}-{mode}-{n}", mode=mode, n=n, reps=[100.0 * n, 90.0 * n],
                      agent=agent, sched_extra={"bench_steps": steps})
    c = collect([tmp_path / "runs"], out_dir=tmp_path / "out", plot=False)
    t = view.throughput(c.table)
    assert c.table["group"].nunique() == 4
    assert sorted(t["panel"].unique()) == ["compiled runtime", "eager runtime"]
    assert sorted(t["curve"].unique()) == ["env_only", "step"]  # never met at one num_envs: one curve
    assert set(t["schedule"]) == {"400 loop steps per rep", "500 loop steps per rep"}


def test_throughput_interval_on_log_reps_never_below_zero(tmp_path):
    from ppo_bench.collect import view

    for name, reps in (("wide", [4000.0, 200.0]),  # a t-interval on the mean runs to -23000
                       ("skewed", [1.0] * 9 + [1000.0])):  # the mean, 100.9, lies above the interval on log reps
        write(tmp_path / name, "step", mode="step", n=1, reps=reps, sched_reps=len(reps))
        drawn = view.throughput(collect([tmp_path / name], plot=False).table).iloc[0]
        mean = sum(reps) / len(reps)
        if name == "wide":
            assert (drawn["lo"], drawn["hi"]) == pytest.approx(log_ci(reps, mean))
            assert 0 < drawn["lo"] < mean < drawn["hi"]
        else:  # its upper end moves out to the mean
            assert 0 < drawn["lo"] < drawn["hi"] == pytest.approx(100.9)


# Synthetic collections, small and fast: a CPU quick job whose 2 reps spread wide (its intervals run far
# beyond any axis that keeps its points readable), a learning sweep whose best seed stops at the target
# first (and one of whose other configuration's seeds failed part-way), and a sweep of every mode in two
# rounds (table.md's widest table: probes, paired speed-ups, limit and efficiencies).
QUICK = {("step", 1): [40.0, 650.0], ("step", 8): [1000.0, 1010.0],
         ("sendrecv", 1): [300.0, 380.0], ("sendrecv", 8): [700.0, 2900.0]}
BEST_FIRST = [[-20.0, -5.0, 10.0, 16.0], [-20.0, -10.0, 0.0, 10.0, 15.5], [-20.0, -12.0, -4.0, 4.0, 12.0, 15.2],
              [-20.0, -15.0, -8.0, 0.0, 8.0, 13.0, 15.1], [-21.0, -18.0, -12.0, -6.0, 0.0, 6.0, 12.0, 15.0]]
WIDE_MODES = (("step", 1, 1700.0), ("sendrecv", 1, 1800.0), ("async", 2, 2500.0), ("env_only", 1, 2500.0),
              ("agent_only", 1, 9000.0), ("agent_only", 2, 6500.0))  # at 64 envs and more: 8x (the H200's)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """The three synthetic collections, collected with the figures on: {name: out dir}."""
    pytest.importorskip("plotly")
    pytest.importorskip("matplotlib")
    from test_collect_learning import failed_learn, learn

    root = tmp_path_factory.mktemp("synthetic")
    for (mode, n), reps in QUICK.items():
        write(root / "quick", f"{mode}-{n}", mode=mode, n=n, reps=reps, sched_extra={"reps": 2})
    for seed, returns in enumerate(BEST_FIRST):
        path = learn(root / "learning", f"a{seed}", returns, mode="async", groups=2, seed=seed,
                     stops={"stop_at_target": True})
        rec = json.loads(path.read_text())
        rec["learning"]["stopped_by"] = "target_return"
        path.write_text(json.dumps(rec))
    for seed, top in enumerate([8.0, 10.0, 12.0]):
        learn(root / "learning", f"s{seed}", [-20.0, -10.0, 0.0, top / 2, top, top], seed=seed)
    failed_learn(root / "learning", "s3", [-20.0, -6.0, 4.0], mode="step", groups=1, seed=3)
    for mode, groups, base in WIDE_MODES:
        for n in (1, 8, 64, 256):
            for rnd in (0, 1):
                reps = [base * min(n, 64) ** 0.5 * f * (1 + 0.03 * rnd) for f in (0.93, 1.0, 1.08)]
                write(root / "wide", f"{mode}-{groups}-{n}-{rnd}", mode=mode, n=n, groups=groups, round=rnd, reps=reps)
    made = {}
    for name in ("quick", "learning", "wide"):
        made[name] = root / f"{name}-summary"
        collect([root / name], out_dir=made[name])
    return made


PANELS = """prefix => Array.from(document.querySelectorAll('div.plot')).filter(d => d.id.startsWith(prefix))
  .map(d => ({div: d.id, type: d._fullLayout.yaxis.type, range: Array.from(d._fullLayout.yaxis.range),
    caption: d.closest('section').querySelector('.blurb').textContent,
    legend: Array.from(d.closest('section').querySelectorAll('.legend [data-legend]')).map(s => s.dataset.legend),
    traces: d.data.map(t => ({meta: t.meta, x: Array.from(t.x || []), y: Array.from(t.y || []),
      text: Array.isArray(t.text) ? Array.from(t.text) : null,
      symbols: t.marker && Array.isArray(t.marker.symbol) ? Array.from(t.marker.symbol) : (t.marker || {}).symbol,
      up: t.error_y ? Array.from(t.error_y.array) : null,
      down: t.error_y ? Array.from(t.error_y.arrayminus) : null}))}))"""


def interval_cuts(panels) -> int:
    """Every interval drawn whole within its panel's y axis, or cut at the axis by an arrow there, in its
    trace's colour, whose hover is the point's own (the interval whole); no arrow where nothing is cut.
    Returns how many cuts were seen."""
    seen = 0
    for p in panels:
        edge = [10 ** v for v in p["range"]] if p["type"] == "log" else p["range"]
        inside = lambda v: edge[0] <= v <= edge[1]  # noqa: E731
        marks = {(round(x, 9), sym): text for tr in p["traces"] if tr["meta"]["kind"] == "cut"
                 for x, y, sym, text in zip(tr["x"], tr["y"], tr["symbols"], tr["text"]) if inside(y)}
        wanted = {}
        for tr in p["traces"]:
            for x, y, up, down, text in zip(tr["x"], tr["y"], tr["up"] or [], tr["down"] or [], tr["text"] or []):
                if y is None:
                    continue
                if y + up > edge[1] * (1 + 1e-9):
                    wanted[(round(x, 9), "arrow-up")] = text
                if y - down < edge[0] * (1 - 1e-9):
                    wanted[(round(x, 9), "arrow-down")] = text
            for y in tr["y"] if tr["meta"]["kind"] in ("band_min", "band_max") else []:
                assert y is None or inside(y), (p["div"], tr["meta"])
        assert marks == wanted, (p["div"], sorted(marks), sorted(wanted))
        if wanted:
            assert "cut" in p["caption"] and any("cut" in name for name in p["legend"]), p["div"]
        seen += len(wanted)
    return seen


def test_no_interval_leaves_an_axis_unmarked(browser, summaries, synthetic):
    """The quick job's 2 reps give [3e-6, 1e10]-wide intervals, its speed-ups whiskers to 30x: each is cut at
    the axis with an arrow, on every chart, and so is any in the committed sweeps."""
    page, _ = opened(browser, synthetic["quick"], 1400)
    cut = {chart: interval_cuts(page.evaluate(PANELS, chart)) for chart in ("chart-throughput", "chart-speedup")}
    assert cut["chart-throughput"] >= 2 and cut["chart-speedup"] >= 1, cut
    page.close()
    for out in [*summaries.values(), synthetic["learning"]]:
        page, _ = opened(browser, out, 1400)
        interval_cuts(page.evaluate(PANELS, "chart-"))
        page.close()


def test_a_seed_stopping_at_the_target_never_drops_the_aggregate(browser, synthetic):
    """The best seed reaches +15 first and stops: it is carried at its last return (it reached the target),
    so the IQM of 5 seeds, every seed rising, never falls, and ends at returns.csv's final IQM. A seed whose
    job failed part-way counts up to its failure; past it the aggregate is named for the seeds left."""
    out = synthetic["learning"]
    returns = pd.read_csv(out / "returns.csv").set_index("mode")
    page, _ = opened(browser, out, 1400)
    for chart in ("chart-returns-env-steps", "chart-returns-wall-s"):
        drawn = page.evaluate(TRACES_COUNTED, chart)
        agg = [tr for tr in drawn if tr["meta"]["kind"] == "aggregate" and tr["meta"]["mode"] == "async"]
        assert len(agg) == 1 and agg[0]["meta"]["name"] == "IQM of 5 seeds", [a["meta"] for a in agg]
        ys = [y for y in agg[0]["y"] if y is not None]
        assert all(b >= a - 1e-9 for a, b in zip(ys, ys[1:])), ys
        assert set(agg[0]["counts"]) == {5}
        assert ys[-1] == pytest.approx(returns.loc["async", "final_iqm"], abs=1e-3)
        carried = [tr for tr in drawn if tr["meta"]["kind"] == "carried" and tr["meta"]["mode"] == "async"]
        assert sorted(tr["meta"]["seed"] for tr in carried) == [0, 1, 2, 3]  # all but the last to stop
        assert all(len(set(tr["y"])) == 1 and tr["y"][0] == BEST_FIRST[tr["meta"]["seed"]][-1] for tr in carried)
        step = [tr for tr in drawn if tr["meta"]["kind"] == "aggregate" and tr["meta"]["mode"] == "step"]
        assert [tr["meta"]["name"] for tr in step] == ["IQM of 4 seeds", "mean of 3 seeds"]
        for tr in step:
            assert {aggregate_name(k) for k in tr["counts"]} == {tr["meta"]["name"]}
        failed = [tr for tr in drawn if tr["meta"]["kind"] == "failed"]
        assert [tr["meta"]["seed"] for tr in failed] == [3]
        assert max(step[0]["x"]) <= failed[0]["x"][0] < min(step[1]["x"])
    page.close()


LEGEND = """prefix => Array.from(document.querySelectorAll('section')).filter(s => s.id.startsWith(prefix))
  .map(s => ({id: s.id,
    keys: Array.from(s.querySelectorAll('.legend [data-legend]')).map(k => ({name: k.dataset.legend,
      colours: Array.from(k.querySelectorAll('svg *')).flatMap(e => [e.getAttribute('stroke'), e.getAttribute('fill')])
        .filter(c => c && c !== 'white' && c !== 'none')})),
    drawn: Array.from(s.querySelectorAll('div.plot')).flatMap(d => d.data.map(t => {
      const m = t.marker || {}, l = t.line || {}, shows = k => (t.mode || 'lines').includes(k);
      return {legend: (t.meta || {}).legend || null, points: Array.from(t.y || []).filter(v => v !== null).length,
              colours: [shows('lines') && l.width !== 0 ? l.color : null, shows('markers') ? m.color : null,
                        shows('markers') && m.line && m.line.width ? m.line.color : null, t.fill ? t.fillcolor : null]
                        .filter(c => c)}; })
      .concat(((d.layout || {}).shapes || []).filter(sh => sh.name).map(sh => ({legend: sh.name, points: 1,
        colours: [sh.line.color]}))))}))"""


def rgb(colour: str) -> tuple:
    """#rrggbb or rgba(r,g,b,a) as (r, g, b)."""
    if colour.startswith("#"):
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return tuple(int(float(v)) for v in re.findall(r"[\d.]+", colour)[:3])


def check_legends(sections) -> int:
    """Each legend key is drawn in the colours of the marks it names, no other; every mark is named by a
    key, and no key names a mark that is absent (no point drawn)."""
    keys = 0
    for s in sections:
        named = {k["name"]: {rgb(c) for c in k["colours"]} for k in s["keys"]}
        drawn: dict = {}
        for d in s["drawn"]:
            if d["legend"] is None:
                continue
            entry = drawn.setdefault(d["legend"], {"colours": set(), "points": 0})
            entry["colours"] |= {rgb(c) for c in d["colours"]}
            entry["points"] += d["points"]
        assert set(named) == set(drawn), (s["id"], set(named) ^ set(drawn))
        for name, colours in named.items():
            assert colours == drawn[name]["colours"], (s["id"], name, colours, drawn[name]["colours"])
            assert drawn[name]["points"] > 0, (s["id"], name)
        assert all(d["legend"] for d in s["drawn"] if d["points"]), s["id"]  # every mark is in the legend
        keys += len(named)
    return keys


def test_legend_keys_are_drawn_in_the_marks_colours(browser, summaries, synthetic):
    for out in [*summaries.values(), *synthetic.values()]:
        page, _ = opened(browser, out, 1400)
        assert check_legends(page.evaluate(LEGEND, "chart-")) > 3
        page.close()


TABLES = """() => Array.from(document.querySelectorAll('#tables table')).map(t => {
  const box = t.parentElement.getBoundingClientRect(), cue = t.parentElement.previousElementSibling;
  return {heads: Array.from(t.querySelectorAll('th')).map(h => { const r = h.getBoundingClientRect();
            return [h.textContent, r.left >= box.left - 1 && r.right <= box.right + 1 && r.right <= innerWidth]; }),
          overflows: t.parentElement.scrollWidth > t.parentElement.clientWidth + 1,
          cue: cue && cue.classList.contains('cue') && cue.offsetParent !== null ? cue.textContent : null}; })"""


def test_tables_are_readable_at_1400_px(browser, summaries, synthetic):
    """table.md's widest table (every mode, probes, paired speed-ups and the efficiencies) shows
    every column at 1400 px; where a table is still wider than the window (800 px), a line above it says
    so and which columns are out of sight, and scrolling its box sideways brings the last one in."""
    page, _ = opened(browser, synthetic["wide"], 1400)
    tables = page.evaluate(TABLES)
    widest = max(tables, key=lambda t: len(t["heads"]))
    assert len(widest["heads"]) >= 13 and {"async/step paired", "eff sendrecv"} <= {h for h, _ in widest["heads"]}
    for t in tables:
        assert all(shown for _, shown in t["heads"]) or t["cue"], t
    assert all(shown for _, shown in widest["heads"]), widest
    page.close()
    for out, width in ((synthetic["wide"], 800), (summaries["runtimes"], 1400), (summaries["runtimes"], 800)):
        page, _ = opened(browser, out, width)
        for i, t in enumerate(page.evaluate(TABLES)):
            hidden = [h for h, shown in t["heads"] if not shown]
            assert not hidden or (t["cue"] and all(h in t["cue"] for h in hidden[-2:])), (width, t)
            if t["overflows"]:
                page.evaluate("i => { const b = document.querySelectorAll('#tables table')[i].parentElement;"
                              " b.scrollLeft = b.scrollWidth; }", i)
                assert page.evaluate(TABLES)[i]["heads"][-1][1], (width, t["heads"][-1])
        page.close()


def test_gridlines_only_at_the_labelled_ticks(browser, summaries, synthetic):
    """A log axis's minor gridlines (each decade's 2..9) crowded into a grey band in a panel's height: the
    page draws a gridline at a labelled tick only."""
    for out in (summaries["runtimes"], synthetic["quick"]):
        page, _ = opened(browser, out, 1400)
        lines = page.evaluate("""() => Array.from(document.querySelectorAll('div.plot'))
          .map(d => [d.id, d.querySelectorAll('path.ygrid').length, d.querySelectorAll('.ytick').length])""")
        assert all(grid <= ticks for _, grid, ticks in lines), lines
        page.close()


SHARE = re.compile(r"(\d+)% of (chain|limit) ([\d,.]+)")


def _story(root: Path, scale: dict) -> Path:
    """step, sendrecv and both probes at 1 and 8 envs, two rounds back to back; `scale`: sendrecv's ratio to
    step per round and num_envs. At 1 env its mean is higher but not shown faster (the rounds disagree)."""
    for rnd in (0, 1):
        for n, base in ((1, 200.0), (8, 600.0)):
            for mode, thr in (("step", base), ("sendrecv", base * scale[(n, rnd)]), ("env_only", 3 * base),
                              ("agent_only", 2 * base)):
                write(root, f"{mode}{n}r{rnd}", mode=mode, n=n, round=rnd, reps=[thr, thr * 1.02, thr * 0.98])
    return root


def test_one_story_in_chromium(browser, tmp_path):
    """Every loop row's share of its one bound is the same in table.md, the headline and the chart's hover;
    at a tie the headline says "not shown faster"; with a baseline, a ratio column in the headline and a
    table of ratios in table.md."""
    old = _story(tmp_path / "old", {(1, 0): 1.1, (1, 1): 0.98, (8, 0): 1.2, (8, 1): 1.21})
    new = _story(tmp_path / "new", {(1, 0): 1.1, (1, 1): 0.98, (8, 0): 1.5, (8, 1): 1.52})
    out = tmp_path / "out"
    collect([new], out_dir=out, baseline=old)
    t = pd.read_csv(out / "table.csv")
    loops = {(r["mode"], int(r["num_envs"])): r for r in t.to_dict("records") if not pd.isna(r["bound"])}
    assert len(loops) == 4
    want = {k: (f"{r['bound_efficiency']:.0%}".rstrip("%"), r["bound_kind"], f"{r['bound']:.0f}")
            for k, r in loops.items()}
    page, log = opened(browser, out, 1280)

    said = page.evaluate("""() => Array.from(document.querySelectorAll('div.plot'))
      .filter(d => d.id.startsWith('chart-throughput-')).flatMap(d => d.data)
      .filter(t => t.meta.kind === 'mean').flatMap(t => t.meta.rows.map((k, i) => [k[1], k[2], t.text[i]]))""")
    hover = {(m, n): SHARE.search(text).groups() for m, n, text in said if (m, n) in loops}
    assert {k: (p, kind, b.replace(",", "")) for k, (p, kind, b) in hover.items()} == want

    cells = page.evaluate("""() => Array.from(document.querySelectorAll('#tables table')).filter(t =>
      t.querySelector('th').textContent === 'num_envs' && t.querySelectorAll('th')[1].textContent === 'step')
      .flatMap(t => { const h = Array.from(t.querySelectorAll('th')).map(x => x.textContent);
        return Array.from(t.querySelectorAll('tbody tr')).flatMap(r => Array.from(r.children)
          .map((c, i) => [h[i], +r.children[0].textContent, c.textContent])); })""")
    tabled = {(h.removeprefix("eff "), n): SHARE.search(text).groups() for h, n, text in cells if h.startswith("eff ")}
    assert tabled == want

    head = page.evaluate("""() => Array.from(document.querySelectorAll('#headline-throughput tbody tr'))
      .map(r => [r.dataset.mode, +r.dataset.numEnvs, r.dataset.verdict, r.children[1].textContent,
                 r.querySelector('td.bound').textContent, r.querySelector('td.baseline').dataset.value,
                 r.querySelector('td.baseline').textContent])""")
    assert [(m, n, v) for m, n, v, *_ in head] == [("sendrecv", 1, "tie"), ("sendrecv", 8, "faster")]
    assert head[0][3] == "sendrecv, not shown faster than step" and head[1][3] == "sendrecv"
    for m, n, _, _, bound, ratio, text in head:
        assert SHARE.search(bound).groups() == want[(m, n)]
        assert close(float(ratio), loops[(m, n)]["baseline_ratio"])
    assert head[1][6].endswith(": faster") and head[0][6].endswith(": no change shown")
    assert "over the baseline" in page.inner_text("#headline-throughput thead")
    assert "now/baseline" in page.inner_text("#tables") and "Improvements (1)" in page.inner_text("#tables")
    assert not log["errors"]
    page.close()
