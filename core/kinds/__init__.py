"""The kinds of memory folder botmemory serves, by name: one module each.

``openmausbot`` (the home's own workspaces), ``claude-code``, ``openclaw`` and
``hermes``. Adding a kind is one module with a ``KIND`` (an
:class:`~botmemory.core.kinds.base.AgentKind`) and a line in :data:`_MODULES`.
"""
from __future__ import annotations

import importlib

from ..base.errors import BadInput
from .base import AgentKind, AgentGauge, Found, Limits, Loaded, Piece

_MODULES = {
    "openmausbot": "openmausbot",
    "claude-code": "claude_code",
    "openclaw": "openclaw",
    "hermes": "hermes",
}
NAMES: tuple[str, ...] = tuple(_MODULES)
AGENT_NAMES: tuple[str, ...] = tuple(n for n in NAMES if n != "openmausbot")
_cache: dict[str, AgentKind] = {}


def get(name: str) -> AgentKind:
    """The kind called *name*, or BadInput naming the kinds there are."""
    kind = _cache.get(name)
    if kind is None:
        mod = _MODULES.get(name)
        if mod is None:
            raise BadInput(f"unknown kind {name!r}: use one of {', '.join(NAMES)}")
        kind = importlib.import_module(f"{__name__}.{mod}").KIND
        if not isinstance(kind, AgentKind):
            raise TypeError(f"{mod}.KIND is not an AgentKind")
        _cache[name] = kind
    return kind


__all__ = ["AGENT_NAMES", "NAMES", "AgentGauge", "AgentKind", "Found", "Limits", "Loaded", "Piece", "get"]
