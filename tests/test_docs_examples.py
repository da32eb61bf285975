"""The Python examples in the docs run as written (the README's are doctests)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"```python\n(.*?)\n```", re.S)
#: optional packages an example imports (the test extra installs them)
OPTIONAL = ("pyspiel", "pettingzoo")


def examples() -> list:
    return [pytest.param(code, id=f"{page.name}-{i}")
            for page in sorted(DOCS.rglob("*.md"))
            for i, code in enumerate(BLOCK.findall(page.read_text()))]


@pytest.mark.parametrize("code", examples())
def test_a_python_example_of_the_docs_runs(code):
    for module in OPTIONAL:
        if module in code:
            pytest.importorskip(module)
    exec(compile(code, "<docs example>", "exec"), {})
