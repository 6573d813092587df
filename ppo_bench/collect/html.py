"""report.html: one self-contained page of a collection's charts, flags and tables, readable offline.

The PNGs show one configuration each and table.md holds the numbers; the page puts both in one
place a browser opens from disk, with figures one can hover and zoom (plotly: figures). It is
self-contained because results are read where no network is (a cluster node, a copy sent on):
plotly.js is embedded once, in the first figure, and nothing on the page is fetched. The
tables are table.md itself, rendered here (its own small subset of markdown: headings, bold
and italic lines, lists, tables), so the page shows exactly what table.md says, its warnings
among them; the flags at the top count the same lists integrity writes there. The page is
written when the plot extra is installed (plotly with matplotlib), under the same condition
as the PNGs; table.md then links to it (`link`).
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from .load import Collection

FILE = "report.html"
LINK = f"Charts: [{FILE}]({FILE})"
STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1240px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.6em; }
.meta, .blurb { color: #555; } nav a { margin-right: 1em; }
.flags { background: #fff6e0; border: 1px solid #e8c66a; padding: 0.4em 1em; border-radius: 4px; }
.flags.clear { background: #eef8ee; border-color: #9c9; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; display: block; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; } td.text { text-align: left; }
td.long { white-space: normal; min-width: 28em; text-align: left; }
#tables li, #tables p { font-size: 0.9em; overflow-wrap: anywhere; }
"""


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
    (out / FILE).write_text(page(c), encoding="utf-8")
    return [out / FILE]


def link(markdown: str) -> str:
    """table.md with its line linking the page, first, so it is seen before the tables."""
    return f"{LINK}\n\n{markdown}"


def page(c: Collection) -> str:
    from .figures import all_figures

    figures = all_figures(c)
    parts, nav = [], []
    for i, (div, heading, blurb, fig) in enumerate(figures):
        nav.append(f'<a href="#{div}-section">{html.escape(heading)}</a>')
        body = fig.to_html(full_html=False, include_plotlyjs=i == 0, div_id=div,
                           config={"displaylogo": False, "responsive": True})
        parts.append(f'<section id="{div}-section"><h2>{html.escape(heading)}</h2>'
                     f'<p class="blurb">{html.escape(blurb)}</p>\n{body}</section>')
    nav.append('<a href="#tables">Tables and warnings</a>')
    return "\n".join([
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>ppo_bench report</title>\n<style>{STYLE}</style>\n</head>\n<body>",
        "<h1>ppo_bench report</h1>", f'<p class="meta">{html.escape(about(c))}</p>',
        f"<nav>{' '.join(nav)}</nav>", flags(c), *parts,
        '<section id="tables"><h2>Tables and warnings</h2>'
        '<p class="blurb">table.md as the collector wrote it (full precision in table.csv).</p>',
        markdown_html(c.markdown), "</section>\n</body>\n</html>\n"])


def about(c: Collection) -> str:
    """What was measured where: game, agent, device and GPU, the number of result files and the last date."""
    j = c.jobs
    if j.empty:
        return "no usable result"
    distinct = lambda col: ", ".join(sorted({str(v) for v in j[col] if v is not None})) or "?"  # noqa: E731
    last = max((d for d in j["finished_at"] if d), default="?")[:19].replace("T", " ")  # to the second, UTC
    return (f"{distinct('game')}, {distinct('agent')} on {distinct('device')} ({distinct('gpu')}); "
            f"{len(j)} result files, {c.table['group'].nunique()} configuration(s); last finished {last}")


def flags(c: Collection) -> str:
    """The warnings table.md lists (integrity, learning), counted in one box at the top of the page."""
    kinds = [("contended jobs (another job ran on the host)", len(c.contended)),
             ("configurations measured on an overloaded machine", len(c.overloaded)),
             ("machine-state warnings on compared jobs", len(c.machine_warnings)),
             ("failed jobs", len(c.failed)), ("skipped jobs (do not apply)", len(c.skipped)),
             ("unusable files", len(c.bad)), ("duplicates", len(c.duplicates)),
             ("job folders without a result", len(c.no_result)), ("paths not found", len(c.missing)),
             ("unreadable folders", len(c.unreadable)), ("learning warnings", len(c.learning_warnings))]
    if not c.table.empty:
        kinds += [("rows with CV over 10% (!)", int(c.table["noisy"].sum())),
                  ("rows over 100% of their limit", int((c.table["efficiency"] > 1).sum())),
                  ("rows that beat their bound", int((c.table["bound_efficiency"] > 1).sum()))]
    found = [f"<li>{html.escape(what)}: {k}</li>" for what, k in kinds if k]
    if not found:
        return '<div class="flags clear" id="flags">No warnings: nothing failed, contended or overloaded.</div>'
    return ('<div class="flags" id="flags"><b>Warnings</b> (listed in full under '
            f'<a href="#tables">Tables and warnings</a>):<ul>{"".join(found)}</ul></div>')


def inline(text: str) -> str:
    """Escaped text with table.md's **bold** and *italic*."""
    text = html.escape(text, quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", text)


def cell(text: str) -> str:
    """A table cell: figures right-aligned, words left-aligned, a long text (a bound's why) wrapped."""
    kind = "" if re.match(r"-?\d", text) else "long" if len(text) > 60 else "text"
    return f'<td class="{kind}">{text}</td>' if kind else f"<td>{text}</td>"


def markdown_html(text: str) -> str:
    """table.md's markdown as HTML: `## ` headings, `| ... |` tables (the row of dashes dropped),
    `- ` lists and paragraphs, one per block of lines."""
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
            out.append("<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
                       + "".join("<tr>" + "".join(cell(d) for d in r) + "</tr>" for r in body)
                       + "</tbody></table>")
        elif line.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(f"<li>{inline(lines[i][2:])}</li>")
                i += 1
            out.append(f"<ul>{''.join(items)}</ul>")
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|", "- ")):
                para.append(inline(lines[i]))
                i += 1
            out.append(f"<p>{' '.join(para)}</p>")
    return "\n".join(out)
