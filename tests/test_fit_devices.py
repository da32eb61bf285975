"""``stonegarden train --device``: the fit on a PyTorch device gives numpy's weights, every
device is checked before any game is played, and a model fitted there is the same model."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from stonegarden.errors import ParameterError
from stonegarden.learn.devices import parse_device
from stonegarden.learn.fit import fit_choices
from stonegarden.learn.fit_torch import fit_choices_torch
from stonegarden.learn.learner import Choices
from stonegarden.learn.train import train

from .conftest import run_cli


@pytest.fixture
def torch():
    """PyTorch, imported by the tests that use it rather than at collection, where every
    worker of the suite paid seconds for it."""
    import torch

    return torch


def _decisions(seed: int, soft: bool) -> Choices:
    """300 decisions of 2-7 candidates, each with three of 20 features (20 pads a row)."""
    rng = np.random.default_rng(seed)
    b = Choices.builder()
    for _ in range(300):
        k = int(rng.integers(2, 8))
        rows = np.concatenate([rng.choice(20, size=(k, 3)), np.full((k, 1), 20)], axis=1)
        pick = int(rng.integers(k))
        b.add(rows, pick, rng.random(k) + 0.01 if soft else None)
    return b.build()


@pytest.mark.parametrize("soft", [False, True])
def test_the_torch_fit_gives_numpys_weights_on_the_cpu(soft):
    data = _decisions(3, soft)
    losses: dict[str, list[float]] = {"numpy": [], "torch": []}
    ours = fit_choices(data, 20, steps=200, progress=lambda _, x: losses["numpy"].append(x))
    theirs = fit_choices_torch(data, 20, steps=200, device="cpu",
                               progress=lambda _, x: losses["torch"].append(x))
    assert theirs.shape == (21,) and theirs[-1] == 0.0
    assert np.abs(ours).max() > 0.05  # the fit moved the weights, so agreeing says something
    np.testing.assert_allclose(theirs, ours, atol=1e-9)
    np.testing.assert_allclose(losses["torch"], losses["numpy"], rtol=1e-9)
    assert losses["numpy"][-1] < losses["numpy"][0]


def test_devices_are_parsed_and_checked_present(monkeypatch, torch):
    assert parse_device("numpy").name == "numpy" and parse_device("numpy").torch_device is None
    cpu = parse_device("torch:cpu")
    assert cpu.name == "torch:cpu" and cpu.version == torch.__version__
    assert parse_device("torch").torch_device in {"cpu", "cuda", "mps"}  # the best present
    for bad in ("gpu", "torch:", "torch:tpu", "torch:cuda:x", "numpy:cpu", " numpy", "cuda"):
        with pytest.raises(ParameterError, match="must be numpy, torch"):
            parse_device(bad)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert parse_device("torch").name == "torch:cpu"
    for absent in ("torch:cuda", "torch:cuda:0", "torch:mps"):
        with pytest.raises(ParameterError, match=r"has no .* device here"):
            parse_device(absent)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert parse_device("torch").name == "torch:cuda"
    assert parse_device("torch:cuda:0").torch_device == "cuda:0"
    with pytest.raises(ParameterError, match="no cuda:1 device"):
        parse_device("torch:cuda:1")


def test_a_machine_without_pytorch_is_told_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(ParameterError, match=r"stonegarden\[torch\]"):
        parse_device("torch:cpu")
    assert parse_device("numpy").name == "numpy"


def test_a_model_fitted_by_torch_is_numpys_model_and_says_where_it_was_fitted(tmp_path,
                                                                             monkeypatch,
                                                                             capsys, torch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ParameterError, match="no cuda device"):
        train("blooms", {"size": 3}, games=2, sims=5, out=tmp_path, device="torch:cuda",
              progress=False, report=lambda _: None)
    assert not any(tmp_path.iterdir())  # refused before any game was played
    metas, weights = {}, {}
    for device in ("numpy", "torch:cpu"):  # the second run reuses the first one's games
        metas[device] = train("blooms", {"size": 3}, games=3, sims=10, steps=50, out=tmp_path,
                              device=device, progress=device != "numpy",
                              report=lambda _: None)
        with np.load(tmp_path / "blooms.npz") as f:
            weights[device] = {k: f[k] for k in f.files}
        assert json.loads((tmp_path / "blooms.json").read_text()) == metas[device]
    numpy_meta, torch_meta = metas["numpy"], metas["torch:cpu"]
    shown = capsys.readouterr().err  # the torch run's: its games were played, only the fit
    assert shown.startswith("reading games") and "3/3" in shown  # the games' decisions read
    assert "\nfit " in shown and "50/50" in shown and "log-loss" in shown
    assert numpy_meta["fit"]["device"] == "numpy" and "torch" not in numpy_meta["versions"]
    assert "--device" not in numpy_meta["command"]
    assert torch_meta["fit"]["device"] == "torch:cpu"
    assert torch_meta["versions"]["torch"] == torch.__version__
    assert torch_meta["command"].endswith("--device torch:cpu")
    assert torch_meta["fit"]["train"] == numpy_meta["fit"]["train"]
    assert weights["numpy"].keys() == weights["torch:cpu"].keys()
    assert any(np.abs(w).max() > 0 for w in weights["numpy"].values())
    for name, w in weights["numpy"].items():
        np.testing.assert_allclose(weights["torch:cpu"][name], w, atol=1e-6)


def test_the_command_refuses_an_unknown_device_before_playing(tmp_path):
    done = run_cli("train", "blooms", "--param", "size=3", "--games", "2", "--sims", "5",
                   "--out", str(tmp_path / "run"), "--device", "gpu", "--quiet")
    assert done.returncode == 2 and "--device must be" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "run" / "data").exists()
