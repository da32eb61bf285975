"""The ply of a position text or diagram is a plain number: anything else is a notation
error, in every game (not a Python error, nor a number Python reads but a person would not)."""

from __future__ import annotations

import pytest

import stonegarden

SMALL = {"blooms": {"size": 3}, "blooms-territory": {"size": 3}, "freego": {"size": 5},
         "bridgego": {"size": 5}, "blobs": {"dice": 8}}


#: the field of a game's position text that holds the ply (the rows are field 0)
PLY_FIELD = {"blooms": 3, "blooms-territory": 3, "freego": 3, "bridgego": 2, "blobs": 3}


@pytest.mark.parametrize("ply", ["9" * 5000, "²", "٤", "1" * 40])
@pytest.mark.parametrize("game_id", sorted(PLY_FIELD))
def test_a_ply_that_is_not_a_plain_number_is_a_notation_error(game_id, ply):
    """A ply of thousands of digits raised Python's "Exceeds the limit (4300 digits)" (the
    engine answered "internal error"); "²" passed the check for digits and then broke ``int``;
    "٤" (an Arabic-Indic 4) was read as 4."""
    game = stonegarden.make(game_id, **SMALL[game_id])
    state = game.initial_state()
    fields = game.position_text(state).split()
    assert fields[PLY_FIELD[game_id]] == "0"
    fields[PLY_FIELD[game_id]] = ply
    with pytest.raises(stonegarden.NotationError):
        game.parse_position(" ".join(fields))
    lines = game.diagram(state).splitlines()
    assert " ply=0" in lines[-1]
    lines[-1] = lines[-1].replace(" ply=0", f" ply={ply}")
    with pytest.raises(stonegarden.NotationError):
        game.parse_diagram("\n".join(lines))
