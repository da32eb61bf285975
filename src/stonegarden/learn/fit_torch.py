"""``fit.fit_choices`` on a PyTorch device: the same conditional logit, loss, L2 penalty and
Adam steps, the gradient by autograd. Double precision wherever the device has it (not on
Apple's ``mps``), so that on the CPU it gives numpy's weights to rounding. Imported only when
a ``torch`` device is asked for: nothing else needs PyTorch. The fit imports PyTorch, not the
module, which ``pytest --doctest-modules`` imports as it does every other (PyTorch takes
seconds to import)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .fit import BETAS, EPSILON, L2, RATE, STEPS
from .learner import Choices


def fit_choices_torch(data: Choices, num_features: int, *, device: str = "cpu",
                      l2: float = L2, steps: int = STEPS, rate: float = RATE,
                      progress: Callable[[int, float], None] | None = None) -> np.ndarray:
    """As ``fit.fit_choices``, on ``device``; the weights come back as numpy float64."""
    import torch

    dev = torch.device(device)
    dtype = torch.float32 if dev.type == "mps" else torch.float64
    decisions = data.decisions
    rows = torch.as_tensor(data.rows, dtype=torch.int64, device=dev)
    # each candidate's decision, so that softmax and log-sum-exp run per decision
    owner = torch.as_tensor(np.repeat(np.arange(decisions), np.diff(data.starts)),
                            dtype=torch.int64, device=dev)
    chosen = torch.as_tensor(data.chosen, dtype=torch.int64, device=dev)
    target = (None if data.target is None
              else torch.as_tensor(data.target, dtype=dtype, device=dev))
    w = torch.zeros(num_features, dtype=dtype, device=dev, requires_grad=True)
    pad = torch.zeros(1, dtype=dtype, device=dev)  # the padding's weight stays 0
    opt = torch.optim.Adam([w], lr=rate, betas=BETAS, eps=EPSILON)
    count = max(decisions, 1)
    for step in range(1, steps + 1):
        opt.zero_grad()
        z = torch.cat([w, pad])[rows].sum(dim=1)
        top = torch.full((decisions,), -torch.inf, dtype=dtype, device=dev).scatter_reduce(
            0, owner, z.detach(), reduce="amax")
        total = torch.zeros(decisions, dtype=dtype, device=dev).index_add(
            0, owner, torch.exp(z - top[owner]))
        lse = top + torch.log(total)
        if target is None:
            loss = (lse - z[chosen]).sum() / count
        else:
            loss = (lse.sum() - target @ z) / count
        (loss + l2 / 2 * (w * w).sum()).backward()
        opt.step()
        if progress is not None:
            progress(step, float(loss.detach()))
    return np.append(w.detach().cpu().numpy().astype(np.float64), 0.0)
