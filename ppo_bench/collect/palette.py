"""The report page's colours, line styles and names: the same on every page.

A reader compares pages of different sweeps side by side, so a mode's colour must not depend on
which modes a sweep happened to run: it is fixed by the mode's place in the registry (MODES:
step, sendrecv, async, then the probes), and a mode the registry does not know (an old file's)
takes a colour fixed by its name. Backends and runtimes are drawn in a palette of their own
(never a mode's colour), fixed by their place in their registry. A mode is named one way
everywhere (`label`): its registry name, with its batches where it runs in more than one
(async, 2 batches); its batches also set its marker, and a probe is drawn thin and dotted, so
that it never reads as a loop.
"""

from __future__ import annotations

import re
import zlib

from ppo_bench.registry import BACKENDS, MODES, RUNTIMES

# step, sendrecv, async, env_only, agent_only (Okabe-Ito blue, orange, green; grey; reddish purple)
MODE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#7F7F7F", "#CC79A7")
# backends and runtimes: none of them a mode's colour (ochre, violet, dark red, teal, magenta)
VALUE_COLOURS = ("#A6761D", "#6A3D9A", "#A50F15", "#1B8A8F", "#E7298A")
SPARE = ("#8C564B", "#17BECF", "#BCBD22", "#393B79", "#637939")  # names no registry knows
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "pentagon", "hexagon")  # by batches: 1, 2, 4, 8, ...
REFERENCE_LINE = "#555555"


def _spare(name: str) -> str:
    """A colour fixed by the name itself (crc32), for a name no registry lists."""
    return SPARE[zlib.crc32(name.encode()) % len(SPARE)]


def mode_colour(mode_name: str) -> str:
    names = MODES.names()
    if mode_name in names and names.index(mode_name) < len(MODE_COLOURS):
        return MODE_COLOURS[names.index(mode_name)]
    return _spare(mode_name)


def value_colour(column: str, value: str) -> str:
    """A backend's or runtime's colour (`column`: "backend" or "runtime")."""
    names = {"backend": BACKENDS, "runtime": RUNTIMES}[column].names()
    if value in names and names.index(value) < len(VALUE_COLOURS):
        return VALUE_COLOURS[names.index(value)]
    return _spare(value)


def is_probe(mode_name: str) -> bool:
    return mode_name in MODES and MODES[mode_name].kind == "probe"


def settings(mode: str) -> tuple[str, dict]:
    """A table's mode label (async[groups=2,x=y]) as its name and the settings it names."""
    name, _, rest = mode.partition("[")
    pairs = [p.partition("=") for p in rest.rstrip("]").split(",") if p]
    return name, {k: v for k, _, v in pairs}


def label(mode: str, groups: int | None = None) -> str:
    """One name per mode everywhere: the registry's name, its batches where more than one, any other
    setting that differs after them. `mode` is a table's label; `groups` its row's groups, where the
    label leaves them out (they differ only between groups of rows)."""
    name, shown = settings(mode)
    g = int(shown.pop("groups", groups or 1))
    extra = [f"{k} {v}" for k, v in shown.items()]
    return name + "".join(f", {x}" for x in ([f"{g} batches"] if g > 1 else []) + extra)


def style(mode: str, groups: int | None = None) -> dict:
    """Colour, marker, dash and width of a mode's line: a loop solid and thick, a probe dotted and thin;
    the marker by its batches."""
    name, shown = settings(mode)
    g = int(shown.get("groups", groups or 1))
    k = max(g, 1).bit_length() - 1
    probe = is_probe(name)
    return {"colour": mode_colour(name), "symbol": SYMBOLS[min(k, len(SYMBOLS) - 1)] + ("-open" if probe else ""),
            "dash": "dot" if probe else "solid", "width": 1.3 if probe else 2.4}


def slug(text: str) -> str:
    """An HTML id's part from a name."""
    return re.sub(r"[^\w-]+", "-", text).strip("-").lower() or "x"
