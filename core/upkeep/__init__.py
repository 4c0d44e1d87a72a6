"""The upkeep wing: the helper model, the tidy-up, capture (its queue, checks and runs), organizing into topics,
and when upkeep is due (``schedule``).

Stands on ``notes``, ``outside`` and ``store``. ``botmemory.core.upkeep`` was the schedule module until round 3;
its names still resolve here for one release (``base.moved``).
"""
from __future__ import annotations

TYPE_CHECKING = False
if not TYPE_CHECKING:
    from ..base.moved import forward

    __getattr__ = forward("upkeep")
