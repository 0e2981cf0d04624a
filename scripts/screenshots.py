#!/usr/bin/env python3
"""Write docs/explorer-*.png (empty store, demo store, filtered, menu open, presets, detail sheet, phone width)
with headless Chromium.

Usage: .venv/bin/python scripts/screenshots.py   (runs tests/browser/test_explorer_screenshots.py with
LORE_SCREENSHOTS=1 against a throwaway live server; LORE_SCREENSHOT_LESSONS sets the demo store's size).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    env = {**os.environ, "LORE_SCREENSHOTS": "1"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "tests/browser/test_explorer_screenshots.py",
        *sys.argv[1:],
    ]
    sys.exit(subprocess.call(command, cwd=ROOT, env=env))
