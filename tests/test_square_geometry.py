"""Square-board geometry: GTP point names, neighbour tables, side masks, Go diagrams."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stonegarden.errors import NotationError, ParameterError
from stonegarden.geometry.square import (
    COLUMNS,
    EAST,
    NORTH,
    SIDE_E,
    SIDE_N,
    SIDE_S,
    SIDE_W,
    SOUTH,
    WEST,
    diagram_lines,
    parse_diagram_lines,
    parse_rows,
    rows_text,
    square_board,
)

sizes = st.integers(3, 19)


def test_columns_skip_i_as_in_gtp():
    assert COLUMNS == "ABCDEFGHJKLMNOPQRST"
    b = square_board(19)
    assert b.names[8] == "J1" and b.names[-1] == "T19"
    assert "I5" not in b.index


def test_points_count_from_the_bottom_left():
    b = square_board(9)
    assert b.point("A1") == 0 and b.point("J1") == 8 and b.point("A2") == 9
    assert b.column_row(b.point("D4")) == (3, 3)
    assert b.names[b.at(8, 8)] == "J9"


def test_point_names_are_case_insensitive_and_trimmed():
    b = square_board(9)
    assert b.point(" d4 ") == b.point("D4")


@pytest.mark.parametrize("bad", ["I5", "Z1", "A0", "A10", "", "D", "4D", "AA1", "A-1", "A01x"])
def test_bad_point_names_are_notation_errors(bad):
    with pytest.raises(NotationError):
        square_board(9).point(bad)


def test_non_text_point_is_a_notation_error():
    with pytest.raises(NotationError):
        square_board(9).point(5)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [2, 20, 0, True, "9", 9.0])
def test_sizes_outside_3_to_19_are_parameter_errors(bad):
    with pytest.raises(ParameterError):
        square_board(bad)


def test_boards_are_built_once_per_size():
    assert square_board(9) is square_board(9)
    assert not square_board(9).neighbours.flags.writeable


def test_corner_neighbours_and_sides():
    b = square_board(5)
    a1 = b.point("A1")
    assert b.neighbours[a1, NORTH] == b.point("A2")
    assert b.neighbours[a1, EAST] == b.point("B1")
    assert b.neighbours[a1, SOUTH] == -1 and b.neighbours[a1, WEST] == -1
    assert b.sides[a1] == SIDE_S | SIDE_W
    assert b.sides[b.point("E5")] == SIDE_N | SIDE_E
    assert b.sides[b.point("C3")] == 0


@given(size=sizes)
def test_neighbour_tables_are_symmetric_and_orthogonal(size):
    b = square_board(size)
    opposite = {NORTH: SOUTH, SOUTH: NORTH, WEST: EAST, EAST: WEST}
    for p in range(b.num_points):
        c, r = b.column_row(p)
        for d, q in enumerate(b.neighbours[p]):
            if q < 0:
                continue
            qc, qr = b.column_row(int(q))
            assert abs(qc - c) + abs(qr - r) == 1
            assert b.neighbours[q, opposite[d]] == p
        assert np.count_nonzero(b.neighbours[p] >= 0) == 4 - bin(int(b.sides[p])).count("1")


boards = sizes.flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(0, 2), min_size=n * n, max_size=n * n)))


@settings(max_examples=60)
@given(board=boards)
@pytest.mark.slow
def test_rows_and_diagrams_round_trip(board):
    size, values = board
    b = square_board(size)
    cells = np.array(values, np.int8)
    assert np.array_equal(parse_rows(b, rows_text(b, cells).split("/"), "t"), cells)
    lines = diagram_lines(b, cells)
    assert np.array_equal(parse_diagram_lines(b, lines, "t"), cells)


def test_diagram_looks_like_a_go_diagram():
    b = square_board(3)
    cells = np.zeros(9, np.int8)
    cells[b.point("A1")] = 1
    cells[b.point("C3")] = 2
    assert diagram_lines(b, cells) == [
        "   A B C",
        " 3 . . O 3",
        " 2 . . . 2",
        " 1 X . . 1",
        "   A B C",
    ]


@settings(max_examples=200)
@given(text=st.text(max_size=80))
def test_garbage_rows_and_diagrams_raise_notation_errors(text):
    b = square_board(3)
    for parse in (lambda: parse_rows(b, text.split("/"), text),
                  lambda: parse_diagram_lines(b, text.splitlines(), text)):
        try:
            cells = parse()
        except NotationError:
            continue
        assert cells.shape == (9,)
