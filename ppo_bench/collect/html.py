"""report.html: one self-contained page that answers at a glance, readable offline and at 800 px.

The page reads top down: what was measured, the answer (headline: per num_envs the fastest loop,
its speed-up and its share of its bound; per learning configuration the time and env steps to the
target), the warnings counted by reason, the charts (figures, curves), where it ran (about:
provenance) and last table.md itself, rendered (its own small subset of markdown: headings, bold
and italic lines, lists, tables; a list longer than FOLD lines folded), so the page shows exactly
what table.md says. Every figure on it is read from the DataFrames the tables are written from.

A chart is a grid of small figures, a panel each, laid out by the browser (CSS grid): at 1400 px
three a row, at 800 px two, so titles (HTML headings, not plotly annotations) never collide, and
one HTML legend per chart names each line once, in the same colour on every page (palette).

Plotly. The page embeds plotly.js once, in a <script> of its own, and the figures as JSON (one
block, drawn by a few lines of script). The bundle is plotly.js-basic-dist-min (vendor/, MIT
licence, its header kept and its LICENSE beside it): scatter, bar and pie traces with every axis
type, error bars, fills between traces (fill="tonexty"), shapes and annotations, which is all the
figures use (scatter traces on log and linear axes; the browser test has the bundle's own
Plotly.validate check every figure), at 1.2 MB where the full bundle is 4.8 MB, so a page stays
under 1.5 MB. Its version is plotly.py's own plotly.js (4.1.1 with plotly 7.1), so the figures'
JSON is what that bundle reads. The figures are built
with plotly.py's graph objects (their validators check every property), so the page is written
when the plot extra is installed, under the same condition as the PNGs; table.md then links to
it (`link`). Nothing on the page is fetched: it opens from disk, offline.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from . import about, headline, view
from .common import to_json
from .chart import Chart
from .figures import all_charts, ids
from .load import Collection

FILE = "report.html"
LINK = f"Charts: [{FILE}]({FILE})"
BUNDLE = Path(__file__).resolve().parent / "vendor" / "plotly-basic.min.js"
FOLD = 6  # a list of table.md longer than this is folded (<details>), its length said
STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.2em auto; max-width: 1480px; padding: 0 12px; color: #222; }
h1 { margin: 0 0 0.2em; font-size: 1.6em; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.4em; }
.meta, .blurb, .files { color: #555; font-size: 0.92em; overflow-wrap: anywhere; }
nav a { margin-right: 1em; white-space: nowrap; }
.flags { background: #fff6e0; border: 1px solid #e8c66a; padding: 0.4em 1em; border-radius: 4px; font-size: 0.92em; }
.flags.clear { background: #eef8ee; border-color: #9c9; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 10px 14px; }
.panels.wide { grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); }
.panels.one { grid-template-columns: minmax(0, 900px); }
.panel { min-width: 0; border: 1px solid #eee; border-radius: 4px; padding: 4px 4px 2px; }
.panel h3 { font-size: 0.95em; font-weight: 600; margin: 2px 6px 0; overflow-wrap: anywhere; }
.panel .note { font-size: 0.8em; color: #555; margin: 0 6px 4px; }
.legend { display: flex; flex-wrap: wrap; gap: 2px 16px; font-size: 0.85em; margin: 0.3em 0 0.6em; }
.legend span { white-space: nowrap; } .legend svg { vertical-align: middle; margin-right: 4px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.45em; text-align: right; }
th { background: #f3f3f3; vertical-align: bottom; } td.text { text-align: left; }
td.long { min-width: 18em; text-align: left; }
.scroll { overflow-x: auto; margin: 0.6em 0; } .scroll table { margin: 0; }
.scroll th:first-child, .scroll td:first-child { position: sticky; left: 0; background: #fff; z-index: 1; }
.scroll th:first-child { background: #f3f3f3; }
.cue { margin: 0.6em 0 -0.3em; font-size: 0.85em; color: #8a5a00; }
.ci { font-size: 0.9em; color: #444; white-space: nowrap; }
table.headline td, table.headline th { white-space: normal; text-align: left; } table.headline { font-size: 0.9em; }
table.headline td.num { text-align: right; }
dl.prov { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; font-size: 0.88em; }
dl.prov dt { font-weight: 600; } dl.prov dd { margin: 0; overflow-wrap: anywhere; }
#tables li, #tables p { font-size: 0.9em; overflow-wrap: anywhere; }
"""
TEMPLATE = {"layout": {"font": {"family": "system-ui, sans-serif", "size": 11, "color": "#222"},
                       "paper_bgcolor": "white", "plot_bgcolor": "white", "hoverlabel": {"align": "left"},
                       "xaxis": {"gridcolor": "#e6e6e6", "linecolor": "#999", "zeroline": False, "automargin": True},
                       "yaxis": {"gridcolor": "#e6e6e6", "linecolor": "#999", "zeroline": False, "automargin": True}}}
DRAW = """<script>
(function () {
  const figures = JSON.parse(document.getElementById("figures").textContent);
  const template = %s;
  const config = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ["select2d", "lasso2d"]};
  for (const [id, f] of Object.entries(figures)) {
    f.layout.template = template;
    Plotly.newPlot(id, f.data, f.layout, config);
  }
})();
</script>"""


CUES = """<script>
(function () {
  // a table wider than its box: the line above it names the columns out of sight, until none are
  function cue(box) {
    const edge = box.getBoundingClientRect(), heads = Array.from(box.querySelectorAll("thead th"));
    const hidden = heads.slice(1).filter(h => { const r = h.getBoundingClientRect();
      return r.right > edge.right + 1 || r.left < edge.left + heads[0].offsetWidth - 1; }).map(h => h.textContent);
    const line = box.previousElementSibling;
    line.hidden = !hidden.length;
    line.textContent = hidden.length ? `Wider than the window: ${hidden.length} of ${heads.length} columns out of ` +
      `sight (${hidden.join(", ")}); scroll the table sideways.` : "";
  }
  const boxes = Array.from(document.querySelectorAll("#tables .scroll"));
  boxes.forEach(b => b.addEventListener("scroll", () => cue(b)));
  window.addEventListener("resize", () => boxes.forEach(cue));
  boxes.forEach(cue);
})();
</script>"""


def can_chart() -> bool:
    """Whether plotly (the `plot` extra) is importable; a collection without it writes everything else."""
    try:
        import plotly.graph_objects  # noqa: F401
    except ImportError:
        return False
    return True


def write(c: Collection, out: Path, plot: bool) -> list[Path]:
    """report.html where the figures are drawn (`plot`: the PNGs' condition) and plotly is there; the
    files written."""
    if not plot:
        return []
    if not can_chart():
        print(f"{FILE} skipped: plotly is not importable (pip install 'ppo-bench[plot]')", file=sys.stderr)
        return []
    (out / FILE).write_text(page(c, out), encoding="utf-8")
    return [out / FILE]


def link(markdown: str) -> str:
    """table.md with its line linking the page, first, so it is seen before the tables."""
    return f"{LINK}\n\n{markdown}"


def page(c: Collection, out: Path) -> str:
    t = view.throughput(c.table) if c.ok and not c.table.empty else c.table
    charts = all_charts(c)
    figures = {i: {"data": p.data, "layout": p.layout} for ch in charts for i, p in zip(ids(ch), ch.panels)}
    nav = ['<a href="#headline">At a glance</a>'] if c.ok else []
    nav += [f'<a href="#{ch.id}">{html.escape(ch.heading)}</a>' for ch in charts]
    nav += ['<a href="#provenance">Provenance</a>', '<a href="#tables">Tables and warnings</a>']
    data = to_json(figures, separators=(",", ":")).replace("</", "<\\/")
    return "\n".join([
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>ppo_bench report</title>\n<style>{STYLE}</style>", f"<script>{BUNDLE.read_text()}</script>",
        "</head>\n<body>", "<h1>ppo_bench report</h1>", f'<p class="meta">{html.escape(summary(c))}</p>',
        about.links(c, out), headline.block(c, t) if c.ok else "", about.warnings(c), f"<nav>{' '.join(nav)}</nav>",
        *(section(ch) for ch in charts), about.provenance(c),
        '<section id="tables"><h2>Tables and warnings</h2>'
        '<p class="blurb">table.md as the collector wrote it (full precision in table.csv).</p>',
        markdown_html(c.markdown), "</section>",
        f'<script type="application/json" id="figures">{data}</script>', DRAW % to_json(TEMPLATE), CUES,
        "</body>\n</html>\n"])


def summary(c: Collection) -> str:
    """What was measured where: game, agent, device and GPU, the number of result files and the last date."""
    j = c.jobs
    if j.empty:
        return "no usable result"
    distinct = lambda col: ", ".join(sorted({str(v) for v in j[col] if v is not None})) or "?"  # noqa: E731
    last = max((d for d in j["finished_at"] if d), default="?")[:19].replace("T", " ")  # to the second, UTC
    gpu = distinct("gpu") if j["gpu"].notna().any() else "no GPU"
    return (f"{distinct('game')}, {distinct('agent')} on {distinct('device')} ({gpu}); "
            f"{len(j)} result files, {c.table['group'].nunique()} configuration(s); last finished {last} UTC")


def section(ch: Chart) -> str:
    panels = "".join(
        '<div class="panel">' + (f"<h3>{html.escape(p.title)}</h3>" if p.title else "")
        + f'<div id="{i}" class="plot"></div>'
        + "".join(f'<p class="note">{html.escape(n)}</p>' for n in p.notes) + "</div>"
        for i, p in zip(ids(ch), ch.panels))
    return (f'<section id="{ch.id}"><h2>{html.escape(ch.heading)}</h2><p class="blurb">{html.escape(ch.caption)}</p>'
            f'<div class="legend">{"".join(legend_item(e) for e in ch.legend)}</div>'
            f'<div class="panels{" wide" * ch.wide}{" one" * (len(ch.panels) == 1)}">{panels}</div></section>')


STAR = "17,0 18.8,4 23,4.4 19.8,7.2 20.8,11.5 17,9.2 13.2,11.5 14.2,7.2 11,4.4 15.2,4"
SHAPES = {"diamond": "17,1 22,6 17,11 12,6", "star": STAR, "triangle-up": "17,1 22,11 12,11",
          "arrow-up": "17,0 21,7 18.2,7 18.2,12 15.8,12 15.8,7 13,7", "x": "13,2 15,0 17,4 19,0 21,2 19,6 21,10 19,12 "
          "17,8 15,12 13,10 15,6"}  # centred at x=17, 12 px high
DASHES = {"solid": "", "dash": "6,3", "dot": "1.5,2.5", "dashdot": "6,2,1.5,2"}


def marker_svg(symbol: str, colour: str, cx: float = 17, outline: str = "") -> str:
    """A legend's marker centred at `cx`, drawn as plotly draws it (filled, or open where the symbol says
    so; its edge in `outline` where given, else its colour); none for ""."""
    if not symbol:
        return ""
    fill = "white" if symbol.endswith("-open") else colour
    shape = symbol.removesuffix("-open")
    common = f'fill="{fill}" stroke="{outline or colour}" stroke-width="1.5"'
    if shape == "square":
        return f'<rect x="{cx - 4:g}" y="2" width="8" height="8" {common}/>'
    if shape in SHAPES or shape.startswith("triangle"):
        points = SHAPES.get(shape, SHAPES["triangle-up"]).split()
        moved = " ".join(f"{float(x) + cx - 17:g},{y}" for x, y in (p.split(",") for p in points))
        return f'<polygon points="{moved}" {common}/>'
    return f'<circle cx="{cx:g}" cy="6" r="4" {common}/>'


def legend_item(e: dict) -> str:
    """A legend key in each colour its marks are drawn in (a mode's bounds, reps or arrows: one per mode
    drawn), side by side, then its name."""
    colours = e["colours"]
    step = 12 if e["kind"] == "marker" else 30 if len(colours) == 1 else 16
    width = max(34, step * len(colours) + 4)
    start = (width - step * len(colours)) / 2  # markers centred in the key
    parts = []
    for i, c in enumerate(colours):
        x0, cx = start + i * step, start + i * step + step / 2
        if e["kind"] == "band":
            parts.append(f'<rect x="{x0:g}" y="1" width="{step - 1}" height="10" fill="{c}" fill-opacity="0.25"/>')
        elif e["kind"] == "marker":
            parts.append(marker_svg(e["symbol"], c, cx, e.get("outline", "")))
        else:
            dash = DASHES.get(e["dash"], "")
            parts.append(f'<line x1="{x0 - 1:g}" y1="6" x2="{x0 + step:g}" y2="6" stroke="{c}" '
                         f'stroke-width="{e["width"]}"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>"
                         + marker_svg(e["symbol"], c, cx if len(colours) > 1 else 17))
    return (f'<span data-legend="{html.escape(e["name"])}"><svg width="{width}" height="12" aria-hidden="true">'
            f'{"".join(parts)}</svg>{html.escape(e["name"])}</span>')


def inline(text: str) -> str:
    """Escaped text with table.md's **bold** and *italic*."""
    text = html.escape(text, quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", text)


def cell(text: str) -> str:
    """A table cell: figures right-aligned, words left-aligned, a long text (a bound's why) wrapped. Where a
    table is wider than the page a cell wraps at its spaces, an interval ([497, 701]) kept on one line."""
    kind = "" if re.match(r"-?\d", text) else "long" if len(text) > 60 else "text"
    text = re.sub(r"\[[^\]<]*\]", lambda m: f'<span class="ci">{m[0]}</span>', text)
    return f'<td class="{kind}">{text}</td>' if kind else f"<td>{text}</td>"


def heading(text: str) -> str:
    """A column's heading, which may wrap at its spaces, after a ratio's slash or a name's underscore
    (async/<wbr>step, num_<wbr>envs) and before a mode's settings (agent_only<wbr>[groups=2])."""
    return re.sub(r"(?<=[/_])|(?=\[)", "<wbr>", text)


def markdown_html(text: str) -> str:
    """table.md's markdown as HTML: `## ` headings, `| ... |` tables (the row of dashes dropped),
    `- ` lists (folded past FOLD lines) and paragraphs, one per block of lines."""
    out, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")) + 1, 4)
            out.append(f"<h{level}>{inline(line.lstrip('#').strip())}</h{level}>")
            i += 1
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i].strip()):
                    rows.append([inline(cell.strip()) for cell in lines[i].strip().strip("|").split("|")])
                i += 1
            head, body = rows[0], rows[1:]
            out.append('<p class="cue" hidden></p><div class="scroll"><table><thead><tr>'
                       + "".join(f"<th>{heading(h)}</th>" for h in head) + "</tr></thead><tbody>"
                       + "".join("<tr>" + "".join(cell(d) for d in r) + "</tr>" for r in body)
                       + "</tbody></table></div>")
        elif line.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(f"<li>{inline(lines[i][2:])}</li>")
                i += 1
            ul = f"<ul>{''.join(items)}</ul>"
            out.append(ul if len(items) <= FOLD else f"<details><summary>{len(items)} lines</summary>{ul}</details>")
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|", "- ")):
                para.append(inline(lines[i]))
                i += 1
            out.append(f"<p>{' '.join(para)}</p>")
    return "\n".join(out)
