"""Run options: what a run computes beside its rules, none of them a rule (RULES.md is silent on
them and the views never see them): the order draws take wall positions in, and luck measured with
the value model's weights (README: Cheaper duplicate answers). A picklable Python object, and the
kernel array the entry points take beside the rule array (``RunOptions.to_array``), which a block
copies into its header (``state``: O_DRAW_ORDER, O_LUCK_ON, O_VALUE).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.contract.rules import DRAW_ORDERS, check_draw_order
from simcore.engine.luck import N_FEATURES

OPT_DRAW_ORDER = 0   # DRAW_ORDERS.index(draw order)
OPT_LUCK_ON = 1      # 1: the hands measure each seat's luck
OPT_VALUE = 2        # the value model's N_FEATURES weights, float64 bits
OPT_LEN = OPT_VALUE + N_FEATURES


@dataclass(frozen=True)
class RunOptions:
    """``draw_order``: ``table`` or ``seat`` (RULES.md: Rulings where the documents are silent, draw
    order). ``value_weights``: the value model's N_FEATURES weights (``simcore.runs.value_model``):
    the hands measure each seat's luck; None, they do not."""

    draw_order: str = "table"
    value_weights: tuple | None = None

    def __post_init__(self):
        check_draw_order(self.draw_order)
        if self.value_weights is not None:
            w = np.ascontiguousarray(self.value_weights, np.float64)
            if w.shape != (N_FEATURES,):
                raise ValueError(f"a value model has {N_FEATURES} weights, not {w.shape}")
            object.__setattr__(self, "value_weights", tuple(float(x) for x in w))

    @property
    def measures_luck(self) -> bool:
        return self.value_weights is not None

    def to_array(self) -> np.ndarray:
        """The kernel's options array (OPT_* slots)."""
        out = np.zeros(OPT_LEN, np.int64)
        out[OPT_DRAW_ORDER] = DRAW_ORDERS.index(self.draw_order)
        if self.value_weights is not None:
            out[OPT_LUCK_ON] = 1
            out[OPT_VALUE:] = np.asarray(self.value_weights, np.float64).view(np.int64)
        return out
