"""Small helpers shared by the SVG views."""

from __future__ import annotations

from html import escape


def fmt(v: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros (smaller SVG)."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


def svg_open(cls: str, x: float, y: float, w: float, h: float, title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" role="img" '
            f'viewBox="{fmt(x)} {fmt(y)} {fmt(w)} {fmt(h)}" '
            f'font-family="system-ui, sans-serif"><title>{escape(title)}</title>')
