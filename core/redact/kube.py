"""A Kubernetes Secret's values: every entry under ``data:`` or ``stringData:`` of a YAML document whose
``kind`` is ``Secret``.

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret).

A Secret's keys are whatever its owner chose (``DATABASE_URL``, ``smtp``, ``tls.key``), so ``assign`` does not
see them as credentials; the manifest says what they are.  Each entry's value is redacted (``data:`` holds
base64, ``stringData:`` the plain value), a block scalar (``key: |``) through its indented lines; an empty value,
a placeholder (``<base64>``, ``${VAR}``) or a Helm template (``{{ .Values.password }}``) is kept.  A ConfigMap,
or a Secret's ``metadata:``, is not touched.  The regexes run only when the text holds "secret" and "data:".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import _holds, _Span
from .placeholders import _is_placeholder

_KIND_RE = re.compile(r"""^kind:[ \t]*["']?secret["']?[ \t]*(?:#[^\n]*)?$""", re.MULTILINE)
_DOC_RE = re.compile(r"^---[ \t]*$", re.MULTILINE)
_DATA_RE = re.compile(r"^(?P<ind>[ \t]*)(?:data|stringdata):[ \t]*$", re.MULTILINE)
_ENTRY_RE = re.compile(
    r"(?P<ind>[ \t]+)(?P<key>[\"']?[A-Za-z0-9_.-]+[\"']?):[ \t]*(?P<value>[^\n]*)"
)
_HELM_RE = re.compile(r"\{\{.*\}\}")


def _kube_secrets(text: str, low: str) -> Iterator[_Span]:
    """*low*: the lower-cased scan copy (same offsets as *text*)."""
    if not (_holds(low, "secret") and _holds(low, "data:")):
        return
    kinds = [m.start() for m in _KIND_RE.finditer(low)]
    if not kinds:
        return
    bounds = [0] + [m.start() for m in _DOC_RE.finditer(low)] + [len(low)]
    for lo, hi in zip(bounds, bounds[1:]):
        if not any(lo <= k < hi for k in kinds):
            continue
        for dm in _DATA_RE.finditer(low, lo, hi):
            yield from _entries(text, dm.end() + 1, hi, len(dm.group("ind")))


def _entries(text: str, pos: int, hi: int, outer: int) -> Iterator[_Span]:
    """The entries of a ``data:`` mapping that starts at *pos* (its lines indented more than *outer*)."""
    inner = -1
    while pos < hi:
        end = text.find("\n", pos, hi)
        if end < 0:
            end = hi
        line = text[pos:end]
        if not line.strip() or line.lstrip().startswith("#"):
            pos = end + 1
            continue
        m = _ENTRY_RE.fullmatch(line)
        ind = len(line) - len(line.lstrip(" \t"))
        if m is None or ind <= outer or (inner >= 0 and ind != inner):
            return
        inner = ind
        raw = m.group("value").rstrip()
        value = raw.strip("\"'")
        if raw[:1] in ("|", ">") and value.lstrip("|>+-0123456789") == "":
            # A block scalar: its lines, indented more than the key.
            start = end + 1
            stop = start
            while stop < hi:
                nxt = text.find("\n", stop, hi)
                nxt = hi if nxt < 0 else nxt
                body = text[stop:nxt]
                if body.strip() and len(body) - len(body.lstrip(" \t")) <= ind:
                    break
                stop = nxt + 1
            block_end = min(stop, hi)
            while block_end > start and text[block_end - 1] in " \t\r\n":
                block_end -= 1
            first = start
            while first < block_end and text[first] in " \t\r\n":
                first += 1
            if block_end > first:
                yield (first, block_end, "kubernetes_secret")
            pos = stop
            continue
        if value and not _is_placeholder(value) and not _HELM_RE.search(value):
            s = pos + m.start("value") + (len(raw) - len(raw.lstrip("\"'")))
            yield (s, s + len(value), "kubernetes_secret")
        pos = end + 1
