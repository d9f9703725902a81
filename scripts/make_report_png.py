"""Regenerate docs/report.png: ``segeval report`` on the music example, shot in headless Chromium.

    python scripts/make_report_png.py [--chromium chromium] [--height 1800]

The page is the one docs/cli.md shows the command of; the picture is its top ``--height`` pixels at
1400 px wide.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUSIC = ROOT / "examples" / "music"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    parser.add_argument("--height", type=int, default=1800)
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "report.png")
    args = parser.parse_args()
    if not args.chromium:
        parser.error("needs headless Chromium (--chromium PATH)")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        subprocess.run([sys.executable, "-m", "segeval", "report", str(MUSIC / "groundtruth.txt"),
                        str(MUSIC / "run_a.txt"), str(MUSIC / "run_b.txt"), "-m", "adr", "-m", "map", "-m", "P_5",
                        "-o", str(page)], check=True, stdout=subprocess.DEVNULL)
        shot = Path(tmp) / "shot.png"
        subprocess.run([args.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--user-data-dir={Path(tmp) / 'profile'}", f"--window-size=1400,{args.height}",
                        f"--screenshot={shot}", f"file://{page}"], check=True, capture_output=True)
        shutil.move(shot, args.output)
    print(args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
