"""One package per game; importing this module registers them all (one line per game)."""

from .blooms import rules as _blooms  # noqa: F401
from .blobs import rules as _blobs  # noqa: F401
