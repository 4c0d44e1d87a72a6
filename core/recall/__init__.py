"""The recall wing: a topic's passages and their words, ranking, the index (its build and storage), recall's
query, and session search over the files.

Stands on ``store``, ``text`` and ``disk``. ``botmemory.core.recall`` was recall's query module until round 3;
its names still resolve here for one release (``base.moved``).
"""
from __future__ import annotations

TYPE_CHECKING = False
if not TYPE_CHECKING:
    from ..base.moved import forward

    __getattr__ = forward("recall")
