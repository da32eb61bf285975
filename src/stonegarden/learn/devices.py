"""Where a model is fitted (``stonegarden train --device``): ``numpy`` on the CPU, the default
and all this project's models need, or PyTorch on one of its devices (``torch`` for the best
one present, ``torch:cpu``, ``torch:cuda``, ``torch:cuda:1``, ``torch:mps``) for a machine with
an accelerator. Both fit the same loss with the same Adam steps (``fit.py``, ``fit_torch.py``);
on the CPU in double precision they agree to rounding."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .fit import STEPS, fit_choices
from .learner import Choices

_FORM = re.compile(r"numpy|torch(:(cpu|mps|cuda(:\d{1,2})?))?")


@dataclass(frozen=True)
class Device:
    """A parsed ``--device``: ``name`` as the metadata records it (``numpy`` or
    ``torch:DEVICE``, the device resolved), ``version`` the library's."""

    name: str
    version: str

    @property
    def torch_device(self) -> str | None:
        return self.name.partition(":")[2] or None

    def fit(self, data: Choices, num_features: int, *, steps: int = STEPS,
            progress: Callable[[int, float], None] | None = None) -> np.ndarray:
        if self.torch_device is None:
            return fit_choices(data, num_features, steps=steps, progress=progress)
        from .fit_torch import fit_choices_torch

        return fit_choices_torch(data, num_features, device=self.torch_device, steps=steps,
                                 progress=progress)


def parse_device(text: str) -> Device:
    """The device ``text`` names, checked present before any work is done.

    Raises:
        ParameterError: an unknown form, PyTorch not installed, or a device it lacks.
    """
    if not _FORM.fullmatch(text):
        raise ParameterError(f"--device must be numpy, torch or torch:cpu|cuda[:N]|mps, "
                             f"not {text!r}")
    if text == "numpy":
        return Device("numpy", np.__version__)
    try:
        import torch
    except ImportError:
        raise ParameterError(f"--device {text} needs PyTorch: pip install "
                             "'stonegarden[torch]'") from None
    wanted = text.partition(":")[2]
    if not wanted:  # the best device present
        wanted = ("cuda" if torch.cuda.is_available()
                  else "mps" if torch.backends.mps.is_available() else "cpu")
    kind, _, index = wanted.partition(":")
    present = {"cpu": True, "cuda": torch.cuda.is_available(),
               "mps": torch.backends.mps.is_available()}[kind]
    if present and index and int(index) >= torch.cuda.device_count():
        present = False
    if not present:
        raise ParameterError(f"PyTorch {torch.__version__} has no {wanted} device here; "
                             "use --device torch:cpu or numpy")
    return Device(f"torch:{wanted}", torch.__version__)
