"""The capture race's playouts with ``eyes`` (no stone on the mover's own eye while another
cell is empty) against the uniform ones, in one run, as ``territory_eyes.py`` measures the
territory rules': playouts per second and their mean length, and ``mcts`` simulations per
second with ``eyes=on`` and without, from the same positions, alternating; prints the ratios
and the figures, the command and the code version as JSON (written to ``--out`` too when
given).

    PYTHONPATH=src python3 benchmarks/race_eyes.py [--size 5] [--seconds 2] [--rounds 2]
        [--out FILE]
"""

from __future__ import annotations

from provenance import run_main
from territory_eyes import measure

if __name__ == "__main__":
    run_main(lambda: measure("blooms", __doc__))
