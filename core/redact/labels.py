"""A credential named in a sentence, its value after a colon: "the Stripe API key for staging: …",
"Here is the Sentry token for the build box: …".

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret).

``assign`` reads a key that stands right before its colon ("API key: …", "- **Wifi password:** …"); a note
often names the credential, then says what it is for, then gives it.  A credential noun (an ``… key`` after
a word that makes it one, "API key", "access key", "secret key"; a token, a secret, a password, a
passphrase), then at most a preposition and five words ("for the staging box", "of the bot") or a remark
in parentheses ("API key (prod)"), then a colon or "is" ("the API key for prod is …", "… is: …"), then one
word — or the word right after the noun, 16 characters or more ("Weather API key Xk29sLq8…", "access token
9f8e…"): a secret only when it reads as a generated value (the test the provider rule puts to a value after a
provider's name: 12 or more characters with a digit, not a date, a version, a domain or a path, and the
entropy of random text).  "The key for the song: C minor", "the token for each request: see below", "the
secret to the crust is cold butter" stay as they are.  The nouns come from the shared words pass; the regex
is tried only where one is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import _holds, _Span
from .placeholders import _how_kept
from .provider import _provider_value_ok
from .words import _word_hits

# A "… key" is a credential after one of these words ("API key", "access key"; not "the key", "primary key").
_KEY_QUALIFIERS = frozenset({
    "api", "access", "secret", "private", "encryption", "license", "licence", "master", "account",
    "auth", "app", "client", "consumer", "developer", "subscription", "service", "admin", "deploy", "sdk",
    "integration", "management", "webhook", "bot", "application",
    "wifi", "wlan", "wpa", "wpa2", "wpa3", "wep", "network", "shared",   # a Wi-Fi network's key ("pre-shared key")
})
# After the noun: a preposition and a few words (or nothing), a colon or "is", then the value.
_TAIL_RE = re.compile(
    r"s?(?:[ \t]+(?:for|of|on|to|in|at|from|used[ \t]+by)(?:[ \t]+[A-Za-z0-9][\w'’.-]{0,24}){1,5}?)?"
    r"(?:[ \t]*\([^()\n]{1,40}\))?"                  # API key (prod): …
    r"(?:(?:[ \t]+(?:is|was))?[ \t]*:[*_]{0,2}[ \t]+|[ \t]+(?:is|was)[ \t]+(?:now[ \t]+)?)"
    r"[*_`\"']{0,2}(?P<v>[^\s`\"'<>()\[\]{}*]{12,200})",
    re.IGNORECASE,
)
# Or the value right after the noun, with no colon and no "is" ("Weather API key Xk29sLq8…", "access token
# 9f8e7d…"): only a value of 16 or more characters that reads as generated, and not after a plural noun.
_BARE_RE = re.compile(r"[ \t]+[*_`\"']{0,2}(?P<v>[^\s`\"'<>()\[\]{}*]{16,200})")
_TRAILING = ".,;:!?"
_WORD_BEFORE_RE = re.compile(r"([a-z0-9]+)[ \t_-]?$")
# What may follow a noun for _TAIL_RE to match at all (one look before trying the regex), and the literals
# one of which every match holds (a text with none of them is not looked at).
_NEXT = frozenset(" \t:s")
_TAIL_LITERALS = (":", "is ", "is\t", "was ", "was\t")


def _labelled(text: str, scan: str, low: str, words: dict[str, list[int]] | None = None) -> Iterator[_Span]:
    """*low*: the lower-cased scan copy; *words*: the words pass over it (``_word_hits``)."""
    said = any(_holds(low, lit) for lit in _TAIL_LITERALS)   # else only the bare form can match
    if words is None:
        words = _word_hits(low)
    size = len(low)
    for word in ("key", "token", "secret", "pass"):
        for p in words[word]:
            if p > 0 and low[p - 1].isalpha():
                continue    # inside a word: "hotkey", "monkey", "pretoken" ("tokens" is fine)
            if word == "pass":
                if low.startswith("password", p):
                    end = p + 8
                elif low.startswith("passphrase", p):
                    end = p + 10
                else:
                    continue
            else:
                end = p + len(word)
            if end >= size or low[end] not in _NEXT:
                continue
            m = _TAIL_RE.match(scan, end) if said else None
            if m is None:
                m = _BARE_RE.match(scan, end)
                if m is None:
                    continue
            if word == "key":   # "API key", "access key"; not "the key", "primary key"
                q = _WORD_BEFORE_RE.search(low, max(0, p - 16), p)
                if q is None or q.group(1) not in _KEY_QUALIFIERS:
                    continue
            s, e = m.span("v")
            while e > s and text[e - 1] in _TRAILING:
                e -= 1
            value = text[s:e]
            if ("://" in value or "«" in value or "pass" in value.lower() or not _provider_value_ok(value)
                    or _how_kept(value)):   # "the API key is sha256-hashed": how it is kept
                continue    # a URL (the URL rule's), a marker, "the password is 1Password-managed"
            yield (s, e, "labelled_secret")
