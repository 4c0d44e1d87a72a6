"""Provider names next to a random-looking value ("TWITCH_CLIENT_SECRET=…", "cloudflare key: …").

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import _max_width, _plain_parts, _Span
from .entropy import _DIGIT_RE, _shannon
from .placeholders import _is_placeholder
from .runs import _find_runs, _Runs

# Providers whose keys have no prefix of their own: a value is a secret when
# one of these names (lower case) stands right before it in an assignment,
# "TWITCH_CLIENT_SECRET=…", "cloudflare global key: …", "plaid secret …".
_PROVIDER_WORDS = (
    "adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "assemblyai",
    "atlassian", "auth0", "beamer", "bitbucket", "bittrex", "cloudflare", "codecov",
    "cohere", "coinbase", "confluence", "confluent", "contentful", "contribsys",
    "datadog", "deepgram", "discord", "droneci", "dropbox", "etsy", "facebook",
    "fastly", "finicity", "finnhub", "flickr", "freshbooks", "gitter", "gocardless",
    "heroku", "hubspot", "intercom", "jfrog", "artifactory", "jira", "kraken",
    "kucoin", "launchdarkly", "looker", "linear", "linkedin", "linked-in", "linked_in",
    "mailchimp", "mailgun", "mapbox", "mattermost", "meraki", "messagebird", "message_bird",
    "message-bird", "mistral", "mixpanel", "netlify", "newrelic", "new_relic", "new-relic",
    "nytimes", "okta", "pagerduty", "plaid", "postmark", "privateai", "private_ai", "private-ai",
    "pusher", "rapidapi", "segment",
    "sendbird", "sentry", "sidekiq", "snyk", "sonar", "sourcegraph", "squarespace", "sumo",
    "telegram", "together", "travis", "twilio", "twitch", "twitter", "typeform",
    "vercel", "yandex", "zendesk", "secret",
)
# What _PROVIDER_TAIL_RE reads between the provider word and the value.
_PROVIDER_TAIL_HEAD = r"""
    [A-Za-z0-9_.-]{0,30}+                         # _API_KEY, .client-secret
    (?:[ \t]{1,2}[A-Za-z][A-Za-z_-]{0,15}+){0,3}+ # " global key", " api token"
    [ \t'"`*\]]{0,3}+                           # **Plaid secret:** `…`
    (?:=>|:{1,3}=|\?=|[=:,>]|\|\|)?+              # Makefile's ?= ::= :::= too
    [ \t'"`*=]{0,5}+
"""


_PROVIDER_TAIL_RE = re.compile(
    _PROVIDER_TAIL_HEAD + r"(?P<v>[A-Za-z0-9_=.+/~:|%-]{12,200}+)", re.VERBOSE
)
_PROVIDER_VALUE_END = frozenset("@")
_PROVIDER_RUN_BYTES = bytes(c if c in b"abcdefghijklmnopqrstuvwxyz0123456789_-" else 32 for c in range(256))
"""Maps every byte that is not one of the characters provider words are made of to a space."""
assert all(w.encode("ascii").translate(_PROVIDER_RUN_BYTES) == w.encode("ascii") for w in _PROVIDER_WORDS)
_RUNS_CLEAN: set[bytes] = set()
_RUNS_WITH: dict[bytes, tuple[str, ...]] = {}
"""Runs seen before: those holding no provider word, and the words the others hold (a text's runs repeat
across texts, and across the scans of one text and of its redacted copy, so each is looked into once)."""
_RUNS_FROM = 4096
"""From this many characters, provider words are found through the text's distinct runs rather than one
search of the whole text per word."""


def _provider_words_in(low: str) -> tuple[str, ...]:
    """The provider words that occur in *low*, in ``_PROVIDER_WORDS`` order: exactly those ``in`` finds.

    Every occurrence lies inside a run of the words' characters (a character above U+00FF, encoded as
    ``?``, ends a run like any other), so a long text (much of a token dump lies near a value) is split
    into its distinct runs and only runs not seen before are searched."""
    if len(low) < _RUNS_FROM:
        return tuple(w for w in _PROVIDER_WORDS if w in low)
    runs = set(low.encode("latin-1", "replace").translate(_PROVIDER_RUN_BYTES).split())
    new = runs - _RUNS_CLEAN
    if new:
        if len(_RUNS_CLEAN) >= 200_000:
            _RUNS_CLEAN.clear()
            _RUNS_WITH.clear()
        for run in new:
            if run not in _RUNS_WITH:
                text = run.decode("ascii")
                got = tuple(w for w in _PROVIDER_WORDS if w in text)
                if got:
                    _RUNS_WITH[run] = got
                else:
                    _RUNS_CLEAN.add(run)
    found = {w for run in runs.intersection(_RUNS_WITH) for w in _RUNS_WITH[run]}
    return tuple(w for w in _PROVIDER_WORDS if w in found) if found else ()


_DATEISH_RE = re.compile(r"[0-9]+(?:[.:/_-][0-9]+)*")
_DOMAINISH_RE = re.compile(r"(?:[a-z0-9-]+\.)+[a-z]{2,}(?:/.*)?|.*\.[a-z]{2,4}")


def _provider_value_ok(v: str) -> bool:
    if len(v) < 12 or _is_placeholder(v):
        return False
    has_digit = any(c.isdigit() for c in v)
    has_alpha = any(c.isalpha() for c in v)
    if not has_digit:
        return False  # words, identifiers, names
    if not has_alpha:
        return len(v) >= 15 and v.isdigit()  # client ids
    if _DATEISH_RE.fullmatch(v) or "://" in v or v.startswith(("/", "~", ".")):
        return False
    if _DOMAINISH_RE.fullmatch(v):
        return False  # example.com, notes.md, api.v2.service.io
    if _plain_parts(v):
        return False  # version-2024, Release_12, foo.bar.v2
    return _shannon(v) >= (2.8 if len(v) < 20 else 3.3)


def _provider_windows(scan: str, low: str, runs: _Runs) -> str:
    """The parts of *low* where a provider word can start a finding, joined.

    A finding's value is 12 or more of _PROVIDER_VALUE_CHARS, with a digit
    and a letter (or 15 digits), and starts at most _PROVIDER_REACH
    characters after the provider word's start: so the word lies in the
    _PROVIDER_REACH characters before a gate run that has a digit and a
    letter (or is 15 long), or in that run itself.  Ordinary prose has few
    such runs, and a search of these parts for 90 words costs little.
    """
    parts: list[str] = []
    end = 0
    for a, b in runs.gate:
        if (b - a >= 15 or _ASCII_LETTER_RE.search(scan, a, b)) and _DIGIT_RE.search(
            scan, a, b
        ):
            lo = max(end, a - _PROVIDER_REACH)
            if lo > end and parts:
                parts.append("\n")
            parts.append(low[lo:b])
            end = b
    return "".join(parts)


def _provider_keyword(
    text: str, scan: str, low: str, runs: _Runs | None = None
) -> Iterator[_Span]:
    if runs is None:
        runs = _find_runs(scan)
    near = _provider_windows(scan, low, runs)
    if not near:
        return
    for word in _provider_words_in(near):  # no other word can start a finding
        p = low.find(word)
        while p >= 0:
            nxt = p + len(word)
            if p == 0 or not low[p - 1].isalpha() or scan[p].isupper():
                m = _PROVIDER_TAIL_RE.match(scan, nxt)
                if m is not None:
                    s, e = m.span("v")
                    while e > s and scan[e - 1] in ".,:;|%-":
                        e -= 1
                    v = text[s:e]
                    after = text[e : e + 1]
                    if after not in _PROVIDER_VALUE_END and _provider_value_ok(v):
                        yield (s, e, "provider_keyed_secret")
                    nxt = max(nxt, m.end())
            p = low.find(word, nxt)


# A provider word starts at most this far before its value's gate run.
_PROVIDER_REACH = _max_width(_PROVIDER_TAIL_HEAD, re.VERBOSE) + max(map(len, _PROVIDER_WORDS))
_ASCII_LETTER_RE = re.compile(r"[A-Za-z]")
