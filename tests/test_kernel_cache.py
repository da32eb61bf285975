"""Numba's kernel caches live in a directory named by the kernel sources' hash
(``kernel_cache.py``), so a change to a kernel in one module never leaves a stale compiled
caller in another."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stonegarden import kernel_cache
from stonegarden.kernel_cache import PACKAGE, kernel_hash, kernel_sources

from .conftest import cli_env

PROBE = """
import stonegarden
from numba.core import config
game = stonegarden.make("freego", size=5)
game.random_playouts(game.initial_state(), 4, 1)  # compiles (and caches) the playout kernel
print(config.CACHE_DIR)
"""


def _run(env_extra: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                         check=True, timeout=600)
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_kernels_are_cached_under_the_hash_of_their_sources(tmp_path):
    where = _run({"XDG_CACHE_HOME": str(tmp_path)})
    expected = tmp_path / "stonegarden" / "kernels" / kernel_hash()
    assert Path(where) == expected
    assert any(expected.rglob("*playouts*.nbi"))  # the kernel was cached there


@pytest.mark.slow
def test_numba_cache_dir_set_by_the_user_wins(tmp_path):
    # the user's place, named apart from the one this process chose (which a child takes for
    # its parent's, not the user's), holding that one's kernels, compiled already (the suite
    # warms them up): the probe loads them, where an empty place would compile them again,
    # as the test above does, for seconds of CPU
    mine = tmp_path / "mine"
    if os.environ.get("NUMBA_CACHE_DIR"):
        mine.symlink_to(os.environ["NUMBA_CACHE_DIR"], target_is_directory=True)
    where = _run({"XDG_CACHE_HOME": str(tmp_path / "xdg"), "NUMBA_CACHE_DIR": str(mine)})
    assert Path(where) == mine
    assert not (tmp_path / "xdg").exists()


def test_a_change_to_any_kernel_module_changes_the_hash_and_others_do_not(tmp_path):
    copy = tmp_path / "pkg"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    base = kernel_hash(copy)
    assert base == kernel_hash(PACKAGE)
    kernels = {p.relative_to(copy).as_posix() for p in kernel_sources(copy)}
    assert "games/freego/chains.py" in kernels and "cli/match.py" not in kernels
    cli = copy / "cli" / "match.py"
    cli.write_text(cli.read_text() + "\n# a comment\n")
    assert kernel_hash(copy) == base  # not a kernel module: the compiled code stays valid
    chains = copy / "games" / "freego" / "chains.py"
    chains.write_text(chains.read_text() + "\n# a comment\n")
    assert kernel_hash(copy) != base


def _forget_the_chosen_place(monkeypatch):
    """No place chosen yet, as in a fresh process (``configure`` sets both variables; set here
    first, they are restored after the test)."""
    for name in ("NUMBA_CACHE_DIR", kernel_cache.CHOSEN):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


def test_cache_directories_unused_for_a_month_are_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _forget_the_chosen_place(monkeypatch)
    monkeypatch.setattr("numba.core.config.CACHE_DIR", "")
    root = tmp_path / "stonegarden" / "kernels"
    stale, recent = root / "0000000000000000", root / "1111111111111111"
    for d in (stale, recent):
        d.mkdir(parents=True)
    month_ago = time.time() - (kernel_cache.KEEP_DAYS + 1) * 86400
    os.utime(stale, (month_ago, month_ago))
    here = kernel_cache.configure()
    assert here == str(root / kernel_hash())
    assert not stale.exists() and recent.exists()


def test_an_unwritable_cache_place_keeps_numba_s_default(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    _forget_the_chosen_place(monkeypatch)
    assert kernel_cache.configure() is None
    assert "NUMBA_CACHE_DIR" not in os.environ


def test_a_child_process_chooses_its_own_place_not_its_parent_s(tmp_path):
    """The place chosen is handed to numba through ``NUMBA_CACHE_DIR``, which a child process
    inherits: a child of other code, or of another cache home, must not take it for the
    user's."""
    parent = str(tmp_path / "parent" / "kernels")
    probe = "import stonegarden, os; print(os.environ['NUMBA_CACHE_DIR'])"
    env = {**os.environ, "NUMBA_CACHE_DIR": parent, kernel_cache.CHOSEN: parent,
           "XDG_CACHE_HOME": str(tmp_path / "child")}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                         text=True, check=True, timeout=120)
    assert Path(out.stdout.strip()) == tmp_path / "child" / "stonegarden" / "kernels" / kernel_hash()


# the warm-up's steps in a process of their own, then the kernels called with an omitted
# default that cannot be hashed: in the test process itself a kernel that calls another and
# was compiled there (not loaded), for types another test used first, gives its callee such
# a signature inside the caller's own compiled code, which is cached with the caller and
# costs no process anything, and the test failed by the order the suite ran in
_OMITTED_ARRAYS = """
import sys
from numba.core import types
from numba.core.registry import CPUDispatcher
from stonegarden import warmup
from stonegarden.core.registry import make
from stonegarden.web.warmup import view_step

def unhashable(value):
    try:
        hash(value)
    except TypeError:
        return True
    return False

game = make("blobs")
for step in (*warmup.STEPS, view_step):  # a finished game's decisive blobs among them
    step(game)
for module in list(sys.modules.values()):
    if module is None or not module.__name__.startswith("stonegarden."):
        continue
    for name, kernel in list(vars(module).items()):
        if isinstance(kernel, CPUDispatcher):
            for signature in kernel.signatures:
                if any(isinstance(t, types.Omitted) and unhashable(t.value) for t in signature):
                    print(f"{module.__name__}.{name}{signature}")
"""


def test_no_kernel_is_compiled_for_an_omitted_array_default():
    """Numba keys an omitted default that cannot be hashed (an array) by its id, which each
    process draws anew: a kernel called from Python without such an argument missed the cache
    and was compiled again in every process (a second of CPU for each server worker's
    warm-up), and added one more entry to the cache each time. A first process fills the
    cache as the warm-up does; the second, loading every kernel from it, is the one checked."""
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", _OMITTED_ARRAYS], capture_output=True,
                             text=True, timeout=600, env=cli_env())
        assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines() == []
