"""What every result file records: the command that made it and the code it measured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def command() -> str:
    return " ".join([Path(sys.executable).name, *sys.argv])


def code_version(src: Path = ROOT / "src") -> str:
    """The commit of the tree ``src`` is in, with ``+dirty`` when ``src`` has changes."""
    try:
        rev = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown"
