"""What the rules page shows: the game's doc (docs/games/<game>.md, shipped in the package),
its parameters, and pictures drawn by its board view."""

from __future__ import annotations

import functools
import math
import re
import time
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from ..agents.registry import make_agent
from ..core.params import value_text
from ..core.protocol import CHANCE
from ..core.registry import available_games, game_class, make
from ..errors import StonegardenError
from ..search.profile import profile_for
from ..sgf import has_sgf_form
from .job_kinds import server_agent_docs
from .seats import seat_words
from .views import Marks, view_for
from .views.base import safe_move_cells

#: docs/games: in the source tree a link to it, in an installed copy the files themselves
DOCS = Path(__file__).resolve().parent / "rules_docs"


#: sections of a game's doc left out of the rules page: those written for developers (the
#: action encoding and observation planes of "Specs", the record format and `replay --json` of
#: "Records and replay"), and "Parameters", which the page draws as the home page takes them
DEV_SECTIONS = ("implementation", "checks", "speed", "benchmark", "version history", "specs",
                "records and replay", "parameters")


def player_doc(markdown: str) -> str:
    """A game's doc as players read it: without the sections for developers, without the
    paragraphs that cite the rules' source files, without code paths; other games' docs become
    links to their rules pages."""
    kept: list[str] = []
    skip = False
    for block in re.split(r"\n(?=## )", markdown):
        title = block.splitlines()[0].lstrip("# ").strip().lower() if block.startswith("## ") else ""
        skip = bool(title) and title.startswith(DEV_SECTIONS)
        if not skip:
            kept.append(block)
    text = "\n".join(kept)
    text = re.sub(r"\A# [^\n]*\n", "", text)  # the page has its own title
    # Python examples are for programmers (docs/architecture.md), not for players
    text = re.sub(r"```python\n.*?```\n?", "", text, flags=re.S)
    # nor are the commands of a terminal (`stonegarden replay game.json --json`): the page's
    # reader plays in the browser; a diagram or a record in a block stays
    text = re.sub(r"```[a-z]*\n(?:stonegarden [^\n]*\n)+```\n?", "", text)
    text = re.sub(r"\s*\(([^()]*)\)", _without_program_words, text)
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if "shared/spec" not in p]
    # a heading whose whole section is gone goes too
    paragraphs = [p for i, p in enumerate(paragraphs) if not _empty_section(paragraphs, i)]
    text = "\n\n".join(paragraphs)
    text = re.sub(r"\s*\(`[^`\s]+\.py`\)", "", text)
    return re.sub(r"`docs/games/([a-z-]+)\.md`", r"[its rules page](/rules/\1)", text)


#: a code span a player in the browser cannot use: a function of the game object
#: (`game.parse_diagram`) or a terminal command (`stonegarden convert a.json a.sgf`)
_PROGRAM_WORDS = re.compile(r"`(?:game\.|stonegarden )[^`]*`")


def _without_program_words(m: re.Match[str]) -> str:
    """A parenthesis of the Notation (``(one line; `game.position_text`)``, ``(`stonegarden
    convert a.json a.sgf` and back)``) without its parts, between ``;``, that name functions or
    terminal commands: the rules page's reader plays in the browser. A parenthesis made only of
    such parts goes with the space before it."""
    if not _PROGRAM_WORDS.search(m.group(1)):
        return m.group(0)
    kept = [part.strip() for part in m.group(1).split(";") if not _PROGRAM_WORDS.search(part)]
    lead = m.group(0)[: len(m.group(0)) - len(m.group(0).lstrip())]
    return f"{lead}({'; '.join(kept)})" if kept else ""


def _heading_level(block: str) -> int:
    """The level of a one-line Markdown heading (``## X`` is 2), else 0."""
    m = re.match(r"(#{1,6}) ", block)
    return len(m.group(1)) if m and "\n" not in block.strip() else 0


def _empty_section(blocks: list[str], i: int) -> bool:
    """Whether block ``i`` is a heading with nothing under it before the next heading of its
    level or above (or the end)."""
    level = _heading_level(blocks[i])
    if not level:
        return False
    following = _heading_level(blocks[i + 1]) if i + 1 < len(blocks) else 1
    return 0 < following <= level


def doc_html(game_id: str) -> str | None:
    """docs/games/<game>.md for players (``player_doc``) as HTML (raw HTML in the file is
    escaped), or ``None``. A variant (``blooms-territory``) falls back to its family's page
    (``blooms.md``)."""
    path = DOCS / f"{game_id}.md"
    if not path.is_file():
        path = DOCS / f"{game_id.split('-')[0]}.md"
    if not path.is_file():
        return None
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    return md.render(player_doc(path.read_text(encoding="utf-8")))


def picture(svg: str) -> str:
    """A board drawn as a picture, not to play on: its cells are no buttons (the rules page's
    pictures were a screen reader's hundreds of buttons that did nothing, two of each name),
    so the picture is one image, named by its title."""
    return svg.replace(' role="button" tabindex="-1"', "")


def sample_pictures(game_id: str, moves: int = 6) -> list[dict[str, str]]:
    """The start position (captioned by the board view) and a position after a few seeded
    random moves, with the last move and its captures marked, as pictures."""
    game = make(game_id)
    view = view_for(game)
    s = game.initial_state()
    pics = [{"caption": view.start_caption,
             "svg": picture(view.svg(game, s, Marks()))}]
    agent = make_agent("random:seed=7")
    before, last = s, ""
    for _ in range(moves):
        if game.is_terminal(s):
            break
        if game.current_player(s) == CHANCE:
            a = game.chance_outcomes(s)[0][0]
        else:
            a = agent.choose(game, s)
        before, last = s, game.action_to_text(s, a)
        s = game.play(s, a)
    if last:
        marks = Marks(tuple(safe_move_cells(view, game, before, last)),
                      tuple(view.captured_cells(game, before, s)))
        pics.append({"caption": f"After {s.ply} random moves; the last, {last}, is marked",
                     "svg": picture(view.svg(game, s, marks))})
    return pics


def _default_text(value: Any) -> str:
    """A parameter's default as ``stonegarden games`` writes it (``none``, ``false``, ``0,0``)."""
    return "none" if value is None else value_text(value)


def rules_context(game_id: str) -> dict[str, Any]:
    cls = game_class(game_id)
    game = make(game_id)
    return {
        "game_id": game_id,
        "title": cls.title,
        "doc": doc_html(game_id),
        "summary": (cls.__doc__ or "").strip().replace("``", ""),
        "params": [{"name": p.name, "doc": p.doc, "default": _default_text(game.params[p.name]),
                    "range": p.values_text()} for p in cls.param_specs],
        "pictures": sample_pictures(game_id),
        "legend": view_for(game).legend(game),
    }


# -- the opponent chooser -----------------------------------------------------------------------
#: the computer's levels (``level:N``) and whom each suits; the home page starts the default
LEVELS = (
    (1, "Learning the rules: it plays sensible moves and misses a lot"),
    (2, "Newcomers: a fair first game once you know the rules"),
    (3, "Casual players who have won a few games"),
    (4, "Regular players: it punishes loose moves"),
    (5, "Strong players: it thinks up to {seconds} a move"),
    (6, "The strongest setting: {seconds} of search a move"),
)
DEFAULT_LEVEL = 2


def level_texts(game: Any, max_think: float = math.inf) -> list[str]:
    """Whom each level suits in ``game``, with the time its search may take where the text
    says it (the game's own levels: a slower search has longer caps), at most the server's
    ``--max-think``, which stops a longer search."""
    levels = profile_for(game).levels
    return [text.format(seconds=f"{min(levels[n][1], max_think):g} seconds")
            for n, text in LEVELS]


def agent_suggestions() -> dict[str, str]:
    """The home page's advanced seat field: each registered agent as a spec that works as it
    is, with one line about it (``level`` needs its number: the default level's)."""
    return {(f"{name}:{DEFAULT_LEVEL}" if name == "level" else name): doc
            for name, doc in server_agent_docs().items()}


def first_mover(game_id: str) -> int:
    """The player who makes the first choice (after any opening chance event): Blobs' player
    2, whose opponent's opening die is part of the initial position. Read from the game's
    class: playing to the first decision ran Blobs' kernels in the home page's request, on the
    event loop, which from an empty cache compiled them there, holding every request for about
    20 s."""
    return int(game_class(game_id).first_chooser)


def home_context(max_think: float = math.inf) -> dict[str, Any]:
    """The levels (whom each suits, with each game's own time a move, at most
    ``max_think``), and for each game who moves first and what each player plays with."""
    seating: dict[str, dict[str, Any]] = {}
    for gid in available_games():
        game = make(gid)
        view = view_for(game)
        seating[gid] = {"first": first_mover(gid), "names": list(view.player_names(game)),
                        "colours": list(view.player_colours(game)),
                        "levels": level_texts(game, max_think)}
    # an SGF file without a stonegarden RU[] is uploaded as one of these
    sgf_games = [{"id": gid, "title": game_class(gid).title} for gid in available_games()
                 if has_sgf_form(make(gid))]
    first = seating[available_games()[0]]["levels"]
    return {"levels": [{"level": n, "text": t, "default": n == DEFAULT_LEVEL}
                       for (n, _), t in zip(LEVELS, first, strict=True)],
            "seating": seating, "sgf_games": sgf_games}


def game_context(game: Any) -> dict[str, Any]:
    """What the game page adds to the snapshot: the marks' legend and the players' names."""
    view = view_for(game)
    return {"marks": view.mark_legend(game),
            "page_info": {"click_to_play": view.click_to_play,
                          "players": list(view.player_names(game)),
                          "colours": list(view.player_colours(game))}}


def rules_index_context() -> dict[str, Any]:
    games = []
    for gid in available_games():
        cls = game_class(gid)
        summary = (cls.__doc__ or "").strip().split("\n\n")[0].replace("``", "")
        summary = re.sub(r"^[a-z-]+: ", "", summary)
        summary = re.sub(r"\s*\([^()]*\.md\)", "", summary).replace(" | ", " or ")
        games.append({"id": gid, "title": cls.title, "summary": summary})
    return {"games": games}


# -- stored games ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def game_words(game_id: str) -> tuple[str, tuple[str, str]]:
    """A game's title and its sides' names ("Bridge Go", ("Black", "White")); for a game this
    server does not know, its id and "Player 1", "Player 2"."""
    try:
        game = make(game_id)
        names = view_for(game).player_names(game)
        return game_class(game_id).title, (names[0], names[1])
    except StonegardenError:
        return game_id, ("Player 1", "Player 2")


def listing_words(summary: dict[str, Any]) -> dict[str, Any]:
    """What a list of games ("my games") shows of one beside its data: the game's title, the
    sides' names and the seats in words ("computer, level 6")."""
    title, players = game_words(summary["game"])
    return {"title": title, "players": list(players),
            "seat_words": [seat_words(s) for s in summary["seats"]]}


def params_words(game_id: str, params: dict[str, Any]) -> str:
    """Non-default parameters in words ("size 5, superko on"), or "standard"."""
    try:
        specs = {p.name: p for p in game_class(game_id).param_specs}
    except StonegardenError:
        specs = {}
    words = []
    for name, value in params.items():
        if isinstance(value, bool) or (name in specs and specs[name].kind == "bool"):
            value = "on" if value else "off"
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value) or "none"
        words.append(f"{name.replace('_', ' ')} {value}")
    return "; ".join(words) or "standard"


def result_words(game_id: str, seats: list[str], result: dict[str, Any] | None) -> str:
    """"Black won (joined ...)"-style words from a stored result, or "in progress"."""
    if not result:
        return "in progress"
    try:
        game = make(game_id)
        names = view_for(game).player_names(game)
    except StonegardenError:
        names = ("Player 1", "Player 2")
    winner = result.get("winner")
    reason = str(result.get("reason") or "").replace("-", " ")
    if reason == "aborted":
        return "aborted (no result)"
    if winner in (1, 2) and reason == "resign":
        return f"{names[winner - 1]} won: {names[2 - winner]} resigned"
    if winner in (1, 2):
        return f"{names[winner - 1]} won ({reason})"
    return f"a draw ({reason})"


def stored_context(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """The stored-games table: dates, game, parameters and seats in words, result."""
    rows = []
    for g in summaries:
        try:
            title = game_class(g["game"]).title
        except StonegardenError:
            title = g["game"]
        rows.append({
            **g,
            "title": title,
            "created_iso": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(g["created"])),
            "created_text": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(g["created"])),
            "params_text": params_words(g["game"], g["params"]),
            "seats_text": " vs ".join(seat_words(s) for s in g["seats"]),
            "result_text": result_words(g["game"], g["seats"], g["result"]),
            "status": "finished" if g["result"] else "playing",
        })
    games = sorted({r["game"]: r["title"] for r in rows}.items(), key=lambda kv: kv[1])
    return {"games": rows, "game_filter": games}
