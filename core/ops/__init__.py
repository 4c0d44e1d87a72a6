"""The ops wing: the one door. Every face (CLI, MCP, routes, hooks) and the desktop reads and writes through
these operations; each takes the opened ``Memory`` first and returns a result with its changes.

``botmemory.core.ops`` was one module until round 3; its names still resolve here for one release
(``base.moved``).
"""
from __future__ import annotations

TYPE_CHECKING = False
if not TYPE_CHECKING:
    from ..base.moved import forward

    __getattr__ = forward("ops")
