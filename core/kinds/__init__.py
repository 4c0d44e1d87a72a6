"""The kinds of memory folder botmemory serves, by name: one module each.

``openmausbot`` (the home's own workspaces), ``claude-code``, ``openclaw`` and
``hermes``. Adding a kind is one module with a ``KIND`` (an
:class:`~botmemory.core.kinds.base.AgentKind`) and a line in :data:`_MODULES`.
"""
from __future__ import annotations

import importlib

from ..base.errors import BadInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import AgentGauge, AgentKind, Found, Limits, Loaded, Piece

_MODULES = {
    "openmausbot": "openmausbot",
    "claude-code": "claude_code",
    "openclaw": "openclaw",
    "hermes": "hermes",
}
NAMES: tuple[str, ...] = tuple(_MODULES)
AGENT_NAMES: tuple[str, ...] = tuple(n for n in NAMES if n != "openmausbot")
_cache: dict[str, AgentKind] = {}


_BASE_NAMES = ("AgentGauge", "AgentKind", "Found", "Limits", "Loaded", "Piece")


def __getattr__(name: str) -> object:
    """The kinds' shared classes, loaded on first use: a module of the package (``claude_code_paths``, which a
    Claude Code prompt's hook reads) does not pay for them (PEP 562)."""
    if name in _BASE_NAMES:
        from . import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get(name: str) -> AgentKind:
    """The kind called *name*, or BadInput naming the kinds there are."""
    kind = _cache.get(name)
    if kind is None:
        mod = _MODULES.get(name)
        if mod is None:
            raise BadInput(f"unknown kind {name!r}: use one of {', '.join(NAMES)}")
        from .base import AgentKind

        kind = importlib.import_module(f"{__name__}.{mod}").KIND
        if not isinstance(kind, AgentKind):
            raise TypeError(f"{mod}.KIND is not an AgentKind")
        _cache[name] = kind
    return kind


__all__ = ["AGENT_NAMES", "NAMES", "AgentGauge", "AgentKind", "Found", "Limits", "Loaded", "Piece", "get"]
