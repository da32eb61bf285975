"""The ``stonegarden`` command (click). Each sub-command lives in its own module."""

from .main import main

__all__ = ["main"]
