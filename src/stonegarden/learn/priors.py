"""From a model's logits to the search's prior values, inside the tree kernels."""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True)
def logit_priors(logits, count, scale, priors):
    """``priors[k] = sigmoid(scale * (logits[k] - log mean exp logits[:count]))`` for each of
    the ``count`` candidates: 1/2 for a move the model finds as likely as the average one,
    towards 1 for likelier ones, towards 0 for less likely ones."""
    top = -1e300
    for k in range(count):
        top = max(top, logits[k])
    total = 0.0
    for k in range(count):
        total += math.exp(logits[k] - top)
    mean = top + math.log(total / count)
    for k in range(count):
        priors[k] = 1.0 / (1.0 + math.exp(-scale * (logits[k] - mean)))
