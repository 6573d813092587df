"""A PNG of a collector's report.html, for the README (docs/report-*.png).

    python bench/screenshot_report.py SUMMARY/report.html docs/report-quick-1400.png [--width 1280] [--charts-only]
        [--max-height PX]

Drives Debian's chromium (apt-get install chromium) through Playwright (the test extra), headless and
offline, as tests/test_report_html.py does: `playwright install` is never needed. The page's figures
size themselves to the window, so the width is fixed and the height is the page's own (`--charts-only`:
down to where the tables begin; `--max-height`: the first screens only, so a long page makes no
20000-px PNG). Charts are flat colours, so the PNG is saved with a palette of 256
(Pillow, which matplotlib brings): a few hundred KB where the full-colour one is megabytes. Exits 1
with one line when chromium is not installed.
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
from pathlib import Path


def chromium() -> str | None:
    """Debian's chromium on PATH, or where Debian puts it."""
    found = shutil.which("chromium") or "/usr/bin/chromium"
    return found if Path(found).exists() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path, help="a report.html")
    parser.add_argument("png", type=Path, help="the PNG to write")
    parser.add_argument("--width", type=int, default=1280, help="viewport width, px")
    parser.add_argument("--charts-only", action="store_true", help="stop where the tables begin")
    parser.add_argument("--max-height", type=int, help="stop after this many px")
    args = parser.parse_args()
    browser_path = chromium()
    if browser_path is None:
        print("screenshot_report: chromium not found (apt-get install chromium)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": args.width, "height": 800})
        page.route("http*://**", lambda route: route.abort())  # offline: the page must need nothing else
        page.goto(args.page.resolve().as_uri())
        page.wait_for_function("Array.from(document.querySelectorAll('div.plot'))"
                               ".every(d => d.querySelector('.main-svg'))")
        height = page.evaluate("document.documentElement.scrollHeight")
        if args.charts_only:
            height = page.evaluate("document.getElementById('provenance').getBoundingClientRect().top + window.scrollY")
        if args.max_height:
            height = min(height, args.max_height)
        clip = {"x": 0, "y": 0, "width": args.width, "height": height}
        shot = page.screenshot(full_page=True, clip=clip)
        browser.close()
    from PIL import Image

    Image.open(io.BytesIO(shot)).convert("RGB").quantize(256).save(args.png, optimize=True)
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
