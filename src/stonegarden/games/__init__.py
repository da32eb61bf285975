"""One package per game; importing this module registers them all (one line per game)."""

from .blooms import rules as _blooms  # noqa: F401
from .freego import rules as _freego  # noqa: F401
from .bridgego import rules as _bridgego  # noqa: F401
