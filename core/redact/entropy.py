"""The high-entropy fallback: a long run of token characters that looks random.

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret)."""

from __future__ import annotations

import binascii
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from itertools import pairwise

from .base import _Span, _sparse
from .credentials import _PemBlock
from .runs import _RUN_TABLE, _runs, _runs_within

_PADDED_PART_RE = re.compile(r"[^=]+=*")
_PATH_PART_RE = re.compile(r"[^/]+")
_BASE64_RE = re.compile(r"[A-Za-z0-9+/]+")
_SEGMENT_SPLIT_RE = re.compile(r"[_\-/]")
_UPPER_RE = re.compile(r"[A-Z]")
_LOWER_RE = re.compile(r"[a-z]")
_DIGIT_RE = re.compile(r"[0-9]")
_HEX_RE = re.compile(r"[0-9a-fA-F_-]+")
_WORD_RE = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}(?![a-z])")
_HASH_LABEL_RE = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:sha-?(?:1|224|256|384|512)|md5|h1|blake2b?|integrity|digest|checksum|"
    r"hash|etag|fingerprint|nonce|pubkey|pin-sha256|base64,)[A-Za-z0-9_]*"
    r"[\"'`]?[ \t]*[:=]?[ \t]*[\"'`]?$"
)
_SRI_PREFIX_RE = re.compile(r"(?:sha(?:1|224|256|384|512)|md5)-", re.IGNORECASE)
# Identifier segments: WORD, word, Word, or hex (NODE_SEA_FUSE_fce680ab…).
_PLAIN_SEGMENT_RE = re.compile(
    r"(?:[A-Z]+|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*)[0-9]{0,4}|[0-9a-f]+|[0-9A-F]+|"
    r"[0-9]+(?:[a-z]{1,4}|[A-Z][a-z]{0,3})(?:[0-9]+[a-z]?)?|"  # 16x9, 1280x720p, 30Hz, 5Mbps
)
_SAFE_ZONE_RES = (
    # URLs (credentials in them are found by the URL rule).
    re.compile(r"://[^\s<>\"'`)\]]*"),
    re.compile(r"www\.(?<![A-Za-z0-9]www\.)[^\s<>\"'`)\]]+"),
    # data: URIs
    re.compile(r"data:[A-Za-z0-9.+/-]*(?:;[A-Za-z0-9=.-]+)*;base64,[A-Za-z0-9+/=]+"),
)

# SSH public keys: "ssh-ed25519 AAAAC3Nz…" (the key type is checked apart).
_SSH_PUB_RE = re.compile(r"AAAA(?<=[ \t]AAAA)[A-Za-z0-9+/]++=*")
_SSH_KEY_TYPE_RE = re.compile(
    r"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-[a-z0-9-]+@openssh\.com)[ \t]+$"
)

_ENTROPY_MIN_LEN = 32
_ENTROPY_MIN_BITS = 3.6
_SWITCH_MIN = 0.3
_WORD_FRAC_MAX = 0.75


def _shannon(s: str) -> float:
    n = len(s)
    return -sum(v / n * math.log2(v / n) for v in Counter(s).values())


_CLASS_RUN_RE = re.compile(r"[A-Z]+|[a-z]+|[0-9]+|[^A-Za-z0-9]+")


def _switch_rate(s: str) -> float:
    """How often neighbouring characters change class (upper/lower/digit)."""
    switches = len(_CLASS_RUN_RE.findall(s)) - 1
    return switches / max(1, len(s) - 1)


def _is_base64_of_hex(s: str) -> bool:
    body = s.rstrip("=")
    if len(body) < 16 or not _BASE64_RE.fullmatch(body):
        return False
    try:
        raw = binascii.a2b_base64(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return False
    return len(raw) >= 8 and all(ch in b"0123456789abcdefABCDEF" for ch in raw)


def _is_periodic(s: str) -> bool:
    """'dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0' repeats itself: no real entropy."""
    if len(s) > 12:
        s = s[:-4]  # base64 of repeated text differs in its last quantum
    n = len(s)
    return any(s[p:] == s[: n - p] for p in range(1, min(n // 2, 64) + 1))


def _is_sequential(s: str) -> bool:
    """'AbCdEfGhIjKlMnOp0123456789': mostly neighbouring characters."""
    codes = s.lower().encode("ascii", "replace")
    close = sum(1 for a, b in pairwise(codes) if -1 <= a - b <= 1)
    return close >= (len(s) - 1) * 0.5


def _could_be_random(body: str) -> bool:
    """The cheap half of _looks_random: shape only."""
    if len(body) < _ENTROPY_MIN_LEN:
        return False
    if _HEX_RE.fullmatch(body):
        return False  # git SHAs, sha256/md5 checksums, UUIDs
    if body.startswith(("_Z", "ZN")):
        return False  # C++ mangled name
    if "EXAMPLE" in body or "example" in body:
        return False  # documentation: 8c5b2c63-b9bc-45a3-a87a-5513eEXAMPLE
    return bool(
        _UPPER_RE.search(body) and _LOWER_RE.search(body) and _DIGIT_RE.search(body)
    )


def _looks_random(tok: str) -> bool:
    body = tok.rstrip("=")
    if not _could_be_random(body):
        return False
    if all(_PLAIN_SEGMENT_RE.fullmatch(seg) for seg in _SEGMENT_SPLIT_RE.split(body)):
        return False
    if _shannon(body) < _ENTROPY_MIN_BITS:
        return False
    letters = body.replace("/", "").replace("_", "").replace("-", "").replace("+", "")
    if _switch_rate(letters) < _SWITCH_MIN:
        return False  # CamelCaseIdentifiersAndPaths
    if sum(len(w) for w in _WORD_RE.findall(body)) / len(body) > _WORD_FRAC_MAX:
        return False
    return not (_is_base64_of_hex(body) or _is_periodic(body) or _is_sequential(body))


def _safe_zones(text: str, blocks: list[_PemBlock]) -> list[tuple[int, int]]:
    zones: list[tuple[int, int]] = [
        (s, e) for s, e, label, closed in blocks if closed and "PRIVATE" not in label
    ]
    for rx in _SAFE_ZONE_RES:
        zones.extend((m.start(), m.end()) for m in rx.finditer(text))
    for m in _SSH_PUB_RE.finditer(text):
        if _SSH_KEY_TYPE_RE.search(text, max(0, m.start() - 48), m.start()):
            zones.append((m.start(), m.end()))
    zones.sort()
    return zones


def _candidate_pieces(
    text: str, rs: int, re_: int, taken: list[_Span], ti: int
) -> Iterator[tuple[int, int]]:
    """The parts of the run text[rs:re_] to judge on their own.

    Secrets already found are cut out (their neighbours must be judged as
    they will look once the secret is a marker), the run is split at '='
    that is not trailing padding ("sig=abc…" is a name and a value), and an
    absolute path is split into its names.
    """
    pieces = [(rs, re_)]
    for s, e, _ in taken[ti:]:
        if s >= re_:
            break
        nxt: list[tuple[int, int]] = []
        for a, b in pieces:
            if e <= a or s >= b:
                nxt.append((a, b))
                continue
            if a < s:
                nxt.append((a, s))
            if e < b:
                nxt.append((e, b))
        pieces = nxt
    for a, b in pieces:
        for sm in _PADDED_PART_RE.finditer(text, a, b):
            pa, pb = sm.start(), sm.end()
            while pa < pb and text[pa] in "-_/":
                pa += 1
            while pb > pa and text[pb - 1] in "-_/":
                pb -= 1
            if pb - pa < _ENTROPY_MIN_LEN or _SRI_PREFIX_RE.match(text, pa):
                continue  # short, or a sha512-… subresource integrity hash
            if text[a] == "/" and "/" in text[pa:pb]:
                for seg in _PATH_PART_RE.finditer(text, pa, pb):
                    if seg.end() - seg.start() >= _ENTROPY_MIN_LEN:
                        yield seg.start(), seg.end()
            else:
                yield pa, pb


def _entropy_runs(
    scan: str, windows: list[tuple[int, int]] | None
) -> Iterator[tuple[int, int]]:
    """The maximal runs of _RUN_CHARS, _ENTROPY_MIN_LEN or longer.

    Each lies inside one of the *windows* (the maximal runs of the token
    rules' characters, a superset), so only those are looked into; without
    them, the whole text.
    """
    if windows is None or not _sparse(windows, scan):
        yield from _runs(scan, _RUN_TABLE, _ENTROPY_MIN_LEN)  # one pass
        return
    for a, b in windows:
        yield from _runs_within(scan, a, b, ".:", _RUN_TABLE, _ENTROPY_MIN_LEN)


def _high_entropy(
    text: str,
    scan: str,
    taken: list[_Span],
    blocks: list[_PemBlock],
    windows: list[tuple[int, int]] | None = None,
) -> Iterator[_Span]:
    zones: list[tuple[int, int]] | None = None
    cut_starts = [s for s, _, _ in taken]
    for rs, re_ in _entropy_runs(scan, windows):
        # Every candidate mixes upper case, lower case and digits; most runs
        # (hex digests, paths, long words) fail that at C speed.
        if not (
            _DIGIT_RE.search(scan, rs, re_)
            and _UPPER_RE.search(scan, rs, re_)
            and _LOWER_RE.search(scan, rs, re_)
        ):
            continue
        # A run glued to other text is part of a path, a domain or a file
        # name ("a.b", "x@y", "C:\\…", "~/x"), not a stand-alone token.
        if rs > 0 and text[rs - 1] in ".\\@~":
            continue
        if re_ + 1 < len(text) and text[re_] in ".\\@" and text[re_ + 1].isalnum():
            continue
        if zones is None:
            zones = _safe_zones(scan, blocks)
        zi = bisect_right(zones, (rs, len(text) + 1)) - 1
        if zi >= 0 and zones[zi][0] <= rs < zones[zi][1]:
            continue  # inside a URL, a certificate, a public key
        if _HASH_LABEL_RE.search(scan, max(0, rs - 24), rs):
            continue  # sha256: …, h1:…, integrity="…"
        ti = max(0, bisect_right(cut_starts, rs) - 1) if taken else 0
        for pa, pb in _candidate_pieces(text, rs, re_, taken, ti):
            if _looks_random(text[pa:pb]):
                yield (pa, pb, "high_entropy")
