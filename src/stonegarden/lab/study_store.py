"""SQLite storage of finished games, keyed by the study they belong to, so a run that is
interrupted (Ctrl-C, a crash, a lost machine) resumes with the games it still lacks."""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from .folder_lock import folder_held
from .selfplay import first_changed

SCHEMA = """
CREATE TABLE IF NOT EXISTS studies (
    key TEXT PRIMARY KEY,
    spec TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    study TEXT NOT NULL REFERENCES studies(key),
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (study, idx)
);
CREATE TABLE IF NOT EXISTS inputs (
    study TEXT PRIMARY KEY REFERENCES studies(key),
    data TEXT NOT NULL
);
"""


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def study_key(spec: dict[str, Any]) -> str:
    """A stable id for what defines a study's games (game, params, agents, base seed)."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


class StudyStore:
    """The lab's games: one SQLite file (``lab.sqlite`` in a run's folder), every finished
    game committed at once. Not the web app's games, which ``stonegarden.store`` keeps."""

    def __init__(self, path: str | Path) -> None:
        """Raises: ParameterError naming the file when its folder cannot be made or the file
        is not a lab database (damaged, or something else)."""
        self.path = Path(path)
        self._identities: dict[Callable[[dict[str, Any]], Any], dict[str, str]] = {}
        # one run at a time in a folder, till close(): two at once played every game twice
        # and wrote their reports and records over each other's
        self._held = contextlib.ExitStack()
        self._held.enter_context(folder_held(self.path.parent, "--out"))
        try:
            self.db = sqlite3.connect(self.path)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(SCHEMA)
        except OSError as exc:
            self._held.close()
            raise ParameterError(f"--out {str(self.path.parent)!r}: {exc.strerror}") from None
        except sqlite3.Error as exc:
            self._held.close()
            raise ParameterError(f"{str(self.path)!r} is not a usable lab database: {exc}") from None

    def __enter__(self) -> StudyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open_study(self, spec: dict[str, Any],
                   identity: Callable[[dict[str, Any]], Any] | None = None) -> str:
        """The key of the study ``spec``, stored if new. With ``identity``, a study stored
        under another spelling of the same games (``identity`` of its spec is the same) is
        that study: its games count, and its key is returned."""
        key = study_key(spec)
        if identity is not None and not self._has(key):
            found = self._alike(identity).get(_text(identity(spec)))
            if found is not None:
                return found
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO studies VALUES (?, ?)",
                            (key, json.dumps(spec, sort_keys=True)))
        for same, alike in self._identities.items():
            alike.setdefault(_text(same(spec)), key)
        return key

    def _alike(self, identity: Callable[[dict[str, Any]], Any]) -> dict[str, str]:
        """The stored studies' keys by their ``identity`` (the first stored of each), read
        once: a sweep opens thousands of studies."""
        if identity not in self._identities:
            rows = self.db.execute("SELECT key, spec FROM studies ORDER BY rowid")
            alike: dict[str, str] = {}
            for key, text in rows:
                alike.setdefault(_text(identity(json.loads(text))), str(key))
            self._identities[identity] = alike
        return self._identities[identity]

    def _has(self, key: str) -> bool:
        return self.db.execute("SELECT 1 FROM studies WHERE key = ?", (key,)).fetchone() is not None

    def hold_inputs(self, key: str, inputs: dict[str, Any]) -> str | None:
        """Hold the study ``key`` to the files its games depend on (``inputs``, what each
        is by its contents): with no game stored, they are recorded as this run's; with
        games, the recorded ones must be these. Returns the first recorded input that
        differs (its name), ``None`` if none does. A study stored before its inputs were
        recorded takes them from this run (what its games were played with is not known)."""
        row = self.db.execute("SELECT data FROM inputs WHERE study = ?", (key,)).fetchone()
        if row is None and not inputs:  # nothing to hold (no write: a sweep opens thousands)
            return None
        if row is not None and self.done(key):
            return first_changed(json.loads(row[0]), inputs)
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO inputs VALUES (?, ?)", (key, _text(inputs)))
        return None

    def recorded_inputs(self, key: str) -> dict[str, Any]:
        """The inputs ``hold_inputs`` recorded for the study ``key`` ({} if none)."""
        row = self.db.execute("SELECT data FROM inputs WHERE study = ?", (key,)).fetchone()
        return {} if row is None else dict(json.loads(row[0]))

    def done(self, key: str) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT idx FROM games WHERE study = ?", (key,))}

    def add(self, key: str, idx: int, data: dict[str, Any]) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO games VALUES (?, ?, ?)",
                            (key, idx, json.dumps(data)))

    def games(self, key: str, limit: int | None = None) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT data FROM games WHERE study = ? ORDER BY idx", (key,))
        out = [json.loads(r[0]) for r in rows]
        return out if limit is None else [g for g in out if g["index"] < limit]

    def close(self) -> None:
        """Close the database and free the folder for another run."""
        self.db.close()
        self._held.close()
