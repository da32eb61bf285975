"""A move model on disk: ``NAME.npz`` (the tables the search reads) beside ``NAME.json``
(what it is and how it was trained). Loaded once per file and process."""

from __future__ import annotations

import contextlib
import hashlib
import json
import zipfile
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ParameterError

#: virtual RAVE samples a model's prior values count as, unless its file says otherwise
DEFAULT_PRIOR = 30


@dataclass(frozen=True, eq=False)
class MoveModel:
    """A loaded model: ``kind`` (which game's learner made it), its tables, ``prior`` (the
    virtual RAVE samples its values count as, unless ``mcts:prior=N`` says otherwise),
    ``scale`` (its logits' scale in the prior values) and the training metadata."""

    path: str
    kind: str
    arrays: dict[str, np.ndarray]
    prior: int
    scale: float
    meta: dict[str, Any]

    def require(self, kind: str, shapes: dict[str, tuple[int, ...]]) -> None:
        """Check that this is a model of ``kind`` with tables of ``shapes``.

        Raises:
            ParameterError: another kind, or a table missing or of another shape.
        """
        if self.kind != kind:
            raise ParameterError(f"model {self.path!r} is a {self.kind!r} model, not {kind!r}")
        for name, shape in shapes.items():
            table = self.arrays.get(name)
            if (table is None or table.shape != shape or table.dtype.kind not in "fiu"
                    or not np.isfinite(table).all()):
                raise ParameterError(f"model {self.path!r}: table {name!r} is missing, not "
                                     f"finite numbers or not of shape {shape}")


def meta_path(path: Path) -> Path:
    return path.with_suffix(".json")


def save_model(path: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """Write ``path`` (.npz, compressed) and its metadata beside it (.json), each whole or
    not at all: both are written beside their places first, so a write cut short (Ctrl-C,
    a full disk) leaves the model that was there, and a process reading it meanwhile reads
    the old files or the new ones.

    Raises:
        ParameterError: the files cannot be written.
    """
    notes = meta_path(path)
    parts = [p.with_name(p.name + ".part") for p in (path, notes)]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with parts[0].open("wb") as f:
            np.savez_compressed(f, allow_pickle=False, **arrays)
        parts[1].write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        parts[0].replace(path)
        parts[1].replace(notes)
    except OSError as exc:
        raise ParameterError(f"cannot write the model {str(path)!r}: "
                             f"{exc.strerror or exc}") from None
    finally:
        for part in parts:
            with contextlib.suppress(OSError):
                part.unlink(missing_ok=True)


def load_model(path: str | Path) -> MoveModel:
    """The model in ``path`` (its .npz; the .json beside it), cached per file until
    either file changes.

    Raises:
        ParameterError: no such file, or not a readable model.
    """
    p = Path(path).expanduser().resolve()
    try:
        tables = p.stat()
    except OSError:
        raise ParameterError(f"no model file {str(path)!r}") from None
    try:
        meta = meta_path(p).stat()
        stamp = (tables.st_mtime_ns, tables.st_size, meta.st_mtime_ns, meta.st_size)
    except OSError:  # _load says so
        stamp = (tables.st_mtime_ns, tables.st_size, 0, -1)
    if p.is_dir():
        raise ParameterError(f"{str(path)!r} is a folder: name the model's .npz file in it")
    if p.suffix == ".json" and p.with_suffix(".npz").is_file():
        raise ParameterError(f"{str(path)!r} is a model's metadata: name its .npz file, "
                             f"{str(p.with_suffix('.npz'))!r}")
    return _load(str(p), stamp)


@lru_cache(maxsize=16)
def _load(path: str, stamp: tuple[int, ...]) -> MoveModel:
    p = Path(path)
    try:
        meta = json.loads(meta_path(p).read_text())
    except OSError as exc:
        raise ParameterError(f"model {path!r} has no readable metadata "
                             f"{str(meta_path(p))!r} beside it: {exc.strerror}") from None
    except ValueError as exc:  # not JSON, or not UTF-8
        raise ParameterError(f"model {path!r}: its metadata {str(meta_path(p))!r} is not "
                             f"JSON: {exc}") from None
    try:
        # np.load would read a file that is no .npz as a pickle (refused, with advice to load
        # it unsafely) or an empty one as an EOFError: either is a file cut short or no model
        if not zipfile.is_zipfile(p):
            raise ValueError("not a .npz archive (empty, cut short or another kind of file)")
        with np.load(p, allow_pickle=False) as data:
            arrays = {k: np.array(data[k]) for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise ParameterError(f"model {path!r} is not readable: {exc}") from None
    try:
        kind = str(meta["kind"])
        prior = int(meta.get("prior", DEFAULT_PRIOR))
        scale = float(meta.get("scale", 1.0))
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError):
        raise ParameterError(f"model {path!r}: its metadata {str(meta_path(p))!r} is not a "
                             "model's (an object naming its 'kind')") from None
    if not 0 <= prior <= 10_000 or not 0 < scale <= 100:
        raise ParameterError(f"model {path!r}: prior {prior!r} or scale {scale!r} out of range")
    return MoveModel(path, kind, arrays, prior, scale, meta)


def model_fingerprint(path: str | Path) -> dict[str, Any]:
    """What a search reads of the model in ``path``: its tables (the .npz's SHA-256) and the
    ``prior`` and ``scale`` its metadata gives them (an edited .json changes the search as
    much as other tables do); the rest of the metadata, how it was trained, is left out.

    Raises:
        ParameterError: no such file, or not a readable model.
    """
    model = load_model(path)
    try:
        digest = hashlib.sha256(Path(model.path).read_bytes()).hexdigest()
    except OSError as exc:
        raise ParameterError(f"model {str(path)!r} is not readable: {exc.strerror}") from None
    return {"sha256": digest, "prior": model.prior, "scale": model.scale}
