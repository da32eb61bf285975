"""One package per game; importing this module registers them all (one line per game), in the
order ``available_games()`` lists them."""
# ruff: noqa: I001  (registration order is the listing order, not alphabetical)

from .blooms import rules as _blooms  # noqa: F401
from .freego import rules as _freego  # noqa: F401
from .bridgego import rules as _bridgego  # noqa: F401
from .blobs import rules as _blobs  # noqa: F401
