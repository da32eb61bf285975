"""What an installed copy holds that a source checkout has beside the package: the wheel
carries the games' rules pages (docs/games) and their pictures, so that the web app of a
`pip install` shows the complete rules, and every script of its pages."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_wheel_carries_the_rules_pages_and_their_pictures(tmp_path):
    # the installed setuptools where it can build this project, else pip's isolated one
    isolation = ["--no-build-isolation"] if _setuptools_builds() else []
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", *isolation,
                    "-q", "-w", str(tmp_path)],
                   check=True, capture_output=True, timeout=600)
    (wheel,) = tmp_path.glob("stonegarden-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for page in sorted((ROOT / "docs" / "games").glob("*.md")):
        assert f"stonegarden/web/rules_docs/{page.name}" in names
    for picture in sorted((ROOT / "docs" / "games" / "img").iterdir()):
        assert f"stonegarden/web/rules_docs/img/{picture.name}" in names
    # the pages' scripts, the game page's modules in a folder of their own included
    static = ROOT / "src" / "stonegarden" / "web" / "static"
    for script in sorted(static.rglob("*.js")):
        assert f"stonegarden/web/static/{script.relative_to(static).as_posix()}" in names


def _setuptools_builds() -> bool:
    """Whether this Python's own setuptools can build pyproject.toml's wheel (68 or newer,
    with the ``wheel`` package unless setuptools has ``bdist_wheel`` itself, from 70.1)."""
    import importlib.util

    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(p) for p in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1) or (
        major >= 68 and importlib.util.find_spec("wheel") is not None)
