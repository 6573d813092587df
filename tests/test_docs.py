"""Every link and path in the project's markdown is one that a fresh clone has.

The files read: every markdown file git tracks or would add (README.md, docs/**, ppo_bench/**), and,
as code, the project's scripts and config (*.py, *.sh, *.toml, conf/**/*.yaml, .ci/run; `--help`'s
text is conf/hydra/help/ppo_bench.yaml) outside tests/, whose cases plant such paths. The rule:

1. A link's target (`[text](target)`, `![alt](target)`, `[label]: target`, an HTML `src=` or `href=`)
   that is no URL (`https:`, `mailto:`) names a file or folder of the repository, read from the
   linking file's folder: one git tracks or would add, so not a git-ignored one (a results folder's
   report.html, which the collector writes again) and never one outside the repository. Its
   `#anchor`, on a markdown file or alone, names a heading of that file as GitHub slugs it. Links
   are read outside code blocks and inline code, where markdown makes none. A `../` path in prose,
   inline code included, is read as a link's target is.
2. In code (code blocks, indented or fenced, and the scripts and config): no `../` (the docs'
   commands run from the repository root, so `../shared/x` is beside the clone, not in it).
   Everywhere: no folder of a developer's machine (`/work/`, `/root/`, `/home/`, `/Users/`).
3. In prose (all but code; inline code is prose), no scratch or machine folder either (`/tmp`,
   `/opt/`): a command in a code block may make one (`--out /tmp/x`), but prose naming one names
   a file of another machine, which the reader cannot find.

Other paths in code (`outputs/multirun/<date>`, `/tmp/x`) are what a command makes, not what the
repository ships, and are not checked.
"""

from __future__ import annotations

import re
import subprocess
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML = re.compile(r"\b(?:src|href)\s*=\s*[\"']([^\"']+)[\"']", re.I)
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
CLIMB = re.compile(r"(?<![\w.~$}/-])\.\./")
DEVELOPER = re.compile(r"(?<![\w.~$}/-])/(?:work|root|home|Users)/")
SCRATCH = re.compile(r"(?<![\w.~$}/-])/(?:tmp|opt)\b[^\s`'\"()]*")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")


@lru_cache(maxsize=1)
def shipped() -> frozenset[str]:
    """The files a commit of this tree would hold, and their folders: tracked or addable, not ignored."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"git ls-files failed (the docs test reads the tree through git): {out.stderr}"
    files = set(out.stdout.split("\n")) - {""}
    return frozenset(files | {str(Path(f).parents[i]) for f in files for i in range(len(Path(f).parts) - 1)})


def lines(text: str) -> list[tuple[int, str, bool]]:
    """(line number, line, in a code block): fenced (``` or ~~~), or indented by 4 spaces after a blank
    line or another code line, as markdown reads them."""
    out, fence, code = [], None, False
    for num, line in enumerate(text.splitlines(), 1):
        mark = re.match(r"\s{0,3}(```|~~~)", line)
        if fence:
            out.append((num, line, True))
            fence = None if mark and mark.group(1) == fence else fence
            continue
        if mark:
            fence = mark.group(1)
            out.append((num, line, True))
            continue
        if line.strip():  # a blank line keeps a code block open; an indented one opens one after a blank
            after_blank = not out or not out[-1][1].strip()
            code = line.startswith("    ") and (code or after_blank)
        out.append((num, line, code))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text as rendered (no code ticks, link targets, emphasis),
    lower case, punctuation dropped, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = INLINE_CODE.sub(lambda m: m.group(2).strip().replace("_", "\0"), text)
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text).replace("\0", "_")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's slug (a repeated one gets -1, -2, as GitHub numbers them) and HTML ids."""
    counts: dict[str, int] = {}
    found = set(re.findall(r"<a\s+(?:name|id)=[\"']([^\"']+)[\"']", text))
    for _, line, code in lines(text):
        match = HEADING.match(line)
        if match and not code:
            base = slug(match.group(2))
            found.add(f"{base}-{counts[base]}" if counts.get(base) else base)
            counts[base] = counts.get(base, 0) + 1
    return found


@lru_cache(maxsize=None)
def anchors_of(rel: str) -> frozenset[str]:
    return frozenset(anchors((ROOT / rel).read_text()))


def link_problem(rel: str, target: str, text: str) -> str | None:
    """What is wrong with one link of the file `rel` (whose text is `text`), or None."""
    target = target.strip("<>")
    if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target):
        return None
    path, _, anchor = unquote(target).partition("#")
    if path.startswith("/"):
        return f"{target}: an absolute path, not one in the repository"
    parts = []
    for part in (Path(rel).parent / path).parts if path else Path(rel).parts:
        if part == "..":
            if not parts:
                return f"{target}: outside the repository"
            parts.pop()
        elif part != ".":
            parts.append(part)
    where = "/".join(parts) or "."
    if path and where != "." and where not in shipped():
        ignored = subprocess.run(["git", "check-ignore", "-q", where], cwd=ROOT, timeout=60).returncode == 0
        return f"{target}: {where} is {'git-ignored: a clone lacks it' if ignored else 'not in the repository'}"
    if anchor and where.endswith(".md"):
        found = anchors(text) if not path else anchors_of(where)
        if anchor not in found:
            return f"{target}: no heading of {where} has the anchor #{anchor}"
    return None


def problems(rel: str, text: str, *, all_code: bool = False) -> list[str]:
    """Every breach of the module's rule in the file `rel`, as `rel:line: what`."""
    out = []
    for num, line, code in lines(text):
        found, rest = [], line
        if code or all_code:
            found += [f"{rest[m.start():].split()[0]}: climbs out of the repository" for m in CLIMB.finditer(rest)]
        else:
            prose = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
            for pattern in (LINK, REFERENCE, HTML):
                for match in pattern.finditer(prose):
                    found.append(link_problem(rel, line[match.start(1):match.end(1)], text))
                    rest = rest[:match.start()] + " " * (match.end() - match.start()) + rest[match.end():]
            for match in CLIMB.finditer(rest):  # a path in prose is read as a link's target is
                path = re.match(r"[^\s`'\"()\[\]<>]+", rest[match.start():]).group(0).rstrip(".,;:")
                found.append(link_problem(rel, path, text))
            found += [f"{m.group(0)}: a scratch or machine folder a reader cannot find"
                      for m in SCRATCH.finditer(rest)]
        found += [f"{rest[m.start():].split()[0]}: a folder of a developer's machine" for m in DEVELOPER.finditer(rest)]
        out += [f"{rel}:{num}: {problem}" for problem in found if problem]
    return out


def documents() -> list[str]:
    return sorted(f for f in shipped() if f.endswith(".md") and (ROOT / f).is_file())


def code_files() -> list[str]:
    return sorted(f for f in shipped() if (ROOT / f).is_file() and not f.startswith("tests/") and (
        Path(f).suffix in (".py", ".sh", ".toml") or f.startswith("conf/") and f.endswith(".yaml")
        or f == ".ci/run"))


def test_the_docs_name_only_what_a_clone_has():
    docs = documents()
    assert "README.md" in docs and any(d.startswith("docs/results/") for d in docs), docs
    found = [p for d in docs for p in problems(d, (ROOT / d).read_text())]
    assert not found, "\n".join(found)


def test_the_scripts_and_config_name_no_path_outside_the_repository():
    code = code_files()
    assert {"run.py", ".ci/run", "pyproject.toml", "conf/hydra/help/ppo_bench.yaml"} <= set(code), code
    found = [p for f in code for p in problems(f, (ROOT / f).read_text(), all_code=True)]
    assert not found, "\n".join(found)


# A planted line in a docs/ page (docs/planted.md), with the problem it must be found to have.
PLANTED_BAD = [
    ("[the findings](findings.mdx)", "not in the repository"),
    ("see [a page](../../outside.md)", "outside the repository"),
    ("[charts](results/2026-12-02-h200/quick_job/quick1/summary/report.html)", "git-ignored: a clone lacks it"),
    ("[learning runs](config.md#learning-run)", "no heading of docs/config.md has the anchor #learning-run"),
    ("[below](#nowhere)", "no heading of docs/planted.md has the anchor #nowhere"),
    ('<img src="report-quick-1200.png" width=600>', "not in the repository"),
    ("[ref]: missing/page.md", "not in the repository"),
    ("[root](/README.md)", "an absolute path"),
    ("the wheels of `../shared/device/wheels/` were installed", "shared/device/wheels is not in the repository"),
    ("as ../../../shared/device/README.md says", "outside the repository"),
    ("\n    cp ../shared/reference/bench_ppo_async.py .ref/", "climbs out of the repository"),
    ("\n    python run.py hydra.run.dir=/root/out/x", "a folder of a developer's machine"),
    ("as in /work/main/conf", "a folder of a developer's machine"),
    ("the script was copied to `/tmp`", "a scratch or machine folder"),
    ("with `PYTHONPATH=/tmp/site:$PWD`", "a scratch or machine folder"),
    ("torch from /opt/torch/.venv", "a scratch or machine folder"),
]

PLANTED_GOOD = [
    "[the findings](findings.md#what-still-differs) and [the results](results/)",
    "[a result](results/2026-12-02-h200/README.md) and [home](../README.md#two-commands)",
    "[a PNG](report-quick-800.png), <img src=\"report-quick-1400.png\">, [PyTorch](https://pytorch.org/)",
    "## A heading\n\n[up](#a-heading)",
    "a sweep writes `outputs/multirun/<date>/summary/` and `<sweep dir>/set_aside/<time>/`",
    "the ratio 1 / (1/env_only + 1/agent_only), and `$R/../x` of a variable",
    "\n    python -m ppo_bench.collect outputs/multirun/<date> --out /tmp/limits",
    "`[report.html](report.html)` in code is no link",
]


@pytest.mark.parametrize("line,problem", PLANTED_BAD)
def test_a_planted_bad_line_is_found(line, problem):
    text = f"# Planted\n\nSome prose.\n{line}\n"
    found = problems("docs/planted.md", text)
    assert len(found) == 1 and problem in found[0], found


@pytest.mark.parametrize("line,problem", [
    ('"""Built as ../shared/device/README.md says."""', "climbs out of the repository"),
    ("    run: /home/me/ppo_bench/run.py", "a folder of a developer's machine"),
])
def test_a_planted_path_in_code_is_found(line, problem):
    found = problems("bench/planted.py", f"import os\n\n{line}\nOUT = '/tmp/x'\n", all_code=True)
    assert len(found) == 1 and problem in found[0], found


@pytest.mark.parametrize("line", PLANTED_GOOD)
def test_a_planted_good_line_passes(line):
    assert problems("docs/planted.md", f"# Planted\n\nSome prose.\n{line}\n") == []


def test_slugs_as_github_writes_them():
    assert slug("2026-12-02 (tree b9104c7, with the collector's table changes of that hour uncommitted): "
                "the main job") == ("2026-12-02-tree-b9104c7-with-the-collectors-table-changes-of-that-hour-"
                                    "uncommitted-the-main-job")
    assert slug("1 and 8 envs (`tree_063c820/chain`, its `summary/table.md`)") == \
        "1-and-8-envs-tree_063c820chain-its-summarytablemd"
    assert slug("What **still** differs") == "what-still-differs"
    assert anchors("# A\n## A\n## A\n") == {"a", "a-1", "a-2"}
