#!/usr/bin/env python3
"""PNG screenshots of a tuning report (adaexplore-tuner report), one per section, for evidence
folders: headless Chromium renders the page once (a full-height screenshot and the DOM after its
scripts ran), and each <section>'s box (its data-box attribute, set by tuner/report/report.js) is
cut out of the screenshot with Pillow.

    tools/report-screenshots.py REPORT.html OUTDIR [--width 1280] [--chromium chromium]

Writes OUTDIR/0-headline.png (above the first section), OUTDIR/<n>-<section id>.png and
OUTDIR/page.png (the whole page); prints one line per file.
Needs Debian's chromium and Pillow (pip install pillow).
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

from PIL import Image


def chromium_args(chromium, profile):
    return [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            f"--user-data-dir={profile}", "--virtual-time-budget=20000"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", type=pathlib.Path)
    ap.add_argument("outdir", type=pathlib.Path)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--chromium", default="chromium")
    a = ap.parse_args()
    url = a.report.resolve().as_uri()
    a.outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        base = chromium_args(a.chromium, profile)
        dom = subprocess.run(base + [f"--window-size={a.width},2000", "--dump-dom", url], capture_output=True,
                             text=True, check=True).stdout
        if 'data-report-status="ok"' not in dom:
            sys.exit(f"{a.report}: the report's script did not finish (no data-report-status=\"ok\")")
        boxes = [(m.group(1), int(m.group(2)), int(m.group(3)))
                 for m in re.finditer(r'<section id="([^"]+)" data-box="(\d+),(\d+)"', dom)]
        height = max(top + h for _, top, h in boxes) + 80
        page = a.outdir / "page.png"
        subprocess.run(base + [f"--window-size={a.width},{height}", f"--screenshot={page}", url],
                       capture_output=True, check=True)
    image = Image.open(page)
    print(page)
    if boxes:  # the title and the headline figures, above the first section
        out = a.outdir / "0-headline.png"
        image.crop((0, 0, a.width, boxes[0][1])).save(out)
        print(out)
    for n, (name, top, h) in enumerate(boxes, 1):
        out = a.outdir / f"{n}-{name}.png"
        image.crop((0, max(0, top - 8), a.width, min(image.height, top + h + 8))).save(out)
        print(out)


if __name__ == "__main__":
    main()
