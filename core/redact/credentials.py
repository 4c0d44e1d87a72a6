"""PEM private keys, URL credentials, Bearer / Authorization headers, curl -u, .netrc.

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

from .base import _holds, _Span
from .placeholders import _is_placeholder
from .words import _found, _word_hits

# ---------------------------------------------------------------------------
# PEM blocks
# ---------------------------------------------------------------------------

# BEGIN and END lines are found separately and paired up (a regex spanning
# from BEGIN to END would rescan the text for every BEGIN line).
_PEM_BEGIN_RE = re.compile(r"-----BEGIN ([A-Z0-9][A-Z0-9 ]{0,40}?)-----")
_PEM_END_RE = re.compile(r"-----END ([A-Z0-9][A-Z0-9 ]{0,40}?)-----")
_PEM_PRIVATE_LABEL_RE = re.compile(r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?")
_PEM_BODY_RE = re.compile(r"[A-Za-z0-9+/]{16}")
# A private key whose END line is missing (pasted truncated): the BEGIN line,
# then header lines ("Proc-Type: …") and base64 lines.
_PEM_OPEN_BODY_RE = re.compile(
    r"(?:[ \t]*\r?\n[ \t>]*(?:[A-Za-z0-9+/=]{8,}+|[A-Za-z-]+: [^\n]*+|)[ \t]*(?=\r?\n|$))*"
)

# (start, end, label, has END line)
_PemBlock = tuple[int, int, str, bool]


def _pem_blocks(text: str) -> list[_PemBlock]:
    ends: dict[str, list[tuple[int, int]]] = {}
    for m in _PEM_END_RE.finditer(text):
        ends.setdefault(m.group(1), []).append((m.start(), m.end()))
    blocks: list[_PemBlock] = []
    covered = -1
    for m in _PEM_BEGIN_RE.finditer(text):
        if m.start() < covered:
            continue
        label = m.group(1)
        found = ends.get(label, [])
        i = bisect_right(found, (m.end(), -1))
        if i < len(found):
            blocks.append((m.start(), found[i][1], label, True))
            covered = found[i][1]
        else:
            blocks.append((m.start(), m.end(), label, False))
    return blocks


# ---------------------------------------------------------------------------
# URL credentials, Bearer / Authorization, curl -u, .netrc
# ---------------------------------------------------------------------------

_URL_CRED_RE = re.compile(
    r"://[^\s:/?#@\[\]\"'<>`]*:([^\s/?#\"'<>`]+)@(?=[A-Za-z0-9\[])"
)
# These three run over the lower-cased text; values are read from the original.
_BEARER_RE = re.compile(r"bearer(?<![a-z0-9_-]bearer)[ \t]+([a-z0-9._~+/=-]{8,})")
_AUTH_HEADER_RE = re.compile(
    r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:basic|bearer|token|bot|digest|apikey|api-token|key|ssws|sso-key|splunk|negotiate)[ \t]+"
    r"([^\s\"'\\,]+)"
)
# "Authorization: <token>" with no scheme (some APIs take the key alone): a value with a digit and a letter.
_AUTH_BARE_RE = re.compile(r"authorization[\"']?[ \t]*:[ \t]*[\"']?([a-z0-9._~+/=-]{16,}+)(?![^\s\"',;])")
# "-u user:password" (checked to be on a line that runs curl).
_CURL_USER_RE = re.compile(
    r"-(?<=[ \t]-)(?:u|-user)(?:[ \t]+|=)[\"']?[^\s:\"']*+:([^\s\"']+)"
)
# "-u KEY:" (an API key as the user name, no password: Stripe's, Mailgun's documented shape).
_CURL_KEY_USER_RE = re.compile(r"-(?<=[ \t]-)(?:u|-user)(?:[ \t]+|=)[\"']?([a-z0-9_.-]{16,}+):(?=[\"']?(?:[ \t]|$))",
                               re.MULTILINE)
_NETRC_RE = re.compile(r"(?m)^[ \t]*machine[ \t]+\S+[^\n]*?\bpassword[ \t]+(\S+)")


def _pem(text: str, blocks: list[_PemBlock]) -> Iterator[_Span]:
    for start, end, label, closed in blocks:
        if not _PEM_PRIVATE_LABEL_RE.fullmatch(label):
            continue
        head_end = text.index("-----", start + 11) + 5
        if closed:
            # A key has a base64 body; code that mentions both lines does not.
            if _PEM_BODY_RE.search(text, head_end, end):
                yield (start, end, "private_key")
            continue
        m = _PEM_OPEN_BODY_RE.match(text, head_end)
        if m is None:
            continue
        stop = m.end()
        while stop > head_end and text[stop - 1] in " \t\r\n>":
            stop -= 1
        if _PEM_BODY_RE.search(text, head_end, stop):
            yield (start, stop, "private_key")



def _after_curl(pattern: re.Pattern[str], low: str) -> Iterator[re.Match[str]]:
    """The matches of *pattern* in *low* that stand after a ``curl`` on their own line (each line's ``curl``
    looked up once, however many matches it holds)."""
    line_end = -1
    curl_at = -1
    for m in pattern.finditer(low):
        p = m.start()
        if p > line_end:
            ls = low.rfind("\n", max(0, line_end), p) + 1
            line_end = low.find("\n", p)
            if line_end < 0:
                line_end = len(low)
            curl_at = low.find("curl", ls, line_end)
        if 0 <= curl_at < p:
            yield m


def _credentials(text: str, scan: str, low: str, words: dict[str, list[int]] | None = None) -> Iterator[_Span]:  # noqa: C901
    """*words*: the words pass over *low* (``_word_hits``), shared with the other detectors."""
    # Each regex runs only when the text holds a literal that every match
    # holds: a literal search is far cheaper than a regex pass.
    if _holds(scan, "@") and _holds(scan, "://"):
        for m in _URL_CRED_RE.finditer(scan):
            if m.start() == 0 or not text[m.start() - 1].isalnum():
                continue  # no scheme
            if not _is_placeholder(text[m.start(1) : m.end(1)]):
                yield (m.start(1), m.end(1), "url_password")
    for m in _BEARER_RE.finditer(low) if _holds(low, "bearer") else ():
        tok = text[m.start(1) : m.end(1)].rstrip(".")
        if _is_placeholder(tok):
            continue
        has_digit = any(c.isdigit() for c in tok)
        mixed = any(c.isupper() for c in tok) and any(c.islower() for c in tok)
        if has_digit or (mixed and len(tok) >= 16):
            yield (m.start(1), m.start(1) + len(tok), "bearer_token")
    if _holds(low, "authorization"):
        for m in _AUTH_HEADER_RE.finditer(low):
            if not _is_placeholder(text[m.start(1) : m.end(1)]):
                yield (m.start(1), m.end(1), "authorization")
        for m in _AUTH_BARE_RE.finditer(low):
            if _generated(text[m.start(1) : m.end(1)]):
                yield (m.start(1), m.end(1), "authorization")
    if words is None:
        words = _word_hits(low)
    if _found(words, "curl"):
        for m in _after_curl(_CURL_USER_RE, low):
            if not _is_placeholder(text[m.start(1) : m.end(1)]):
                yield (m.start(1), m.end(1), "password")
        for m in _after_curl(_CURL_KEY_USER_RE, low):
            if _generated(text[m.start(1) : m.end(1)]):
                yield (m.start(1), m.end(1), "api_key")


def _generated(value: str) -> bool:
    """A value with no scheme or label of its own reads as a key: a digit, a letter, not a placeholder."""
    return (
        any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and "://" not in value
        and not _is_placeholder(value)
    )
