"""Makes ``webhelpers`` (and the shared ``fuzz_values``) importable from the web tests (pytest
runs with importlib mode)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
