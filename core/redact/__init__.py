"""Find credentials in text and replace them with ``«redacted N chars»``.

Everything that reaches disk goes through :func:`redact` (docs/RULES.md
"Redaction").  N is the secret's length in
characters, not bytes.  Standard library only; every pattern is compiled at
import, and a megabyte of ordinary notes takes about 13 ms.

What counts as a secret:

* PEM private key blocks, ``-----BEGIN … PRIVATE KEY-----`` through the
  matching END line, as one secret.  A block whose END line is missing is
  redacted through its last base64 line.  Public keys, certificates and code
  that merely mentions the BEGIN/END lines are left alone.
* Provider keys with a recognisable shape: AWS access key ids (and
  ``aws_secret_access_key = …``), GitHub (``ghp_`` ``gho_`` ``ghu_`` ``ghs_``
  ``ghr_`` ``github_pat_``), GitLab, Slack tokens and webhook URLs, Stripe,
  OpenAI, Anthropic, Google (API keys, OAuth secrets and tokens), Hugging
  Face, npm, PyPI, SendGrid, Telegram bots, DigitalOcean, Shopify, Discord
  and Teams webhooks, age secret keys and JWTs.  ``ghp_xxxx…``-style placeholders are
  not secrets.
* About 150 more prefixed formats, each a rule of its own (written here
  from providers' documents and the public rule lists of gitleaks,
  trufflehog and GitHub secret scanning): Groq ``gsk_``, xAI, Perplexity,
  Replicate, LangSmith, Linear, Notion, Postman, Doppler, Databricks,
  Pulumi, Sentry, RubyGems, Grafana, Atlassian, Shopify, Fly.io, Supabase,
  PlanetScale, Cloudflare origin CA, New Relic, Vault, Terraform, Dynatrace,
  Azure client secrets (``…8Q~…``), Discord bot tokens, Facebook, Square,
  Airtable, Figma, Mapbox, Sendinblue, Mailgun, Mailchimp, Twilio and more;
  ``tests/core/data/redaction/providers.py`` has one fake sample of each.
* A value right after the name of a provider whose keys have no prefix
  (``TWITCH_CLIENT_SECRET=…``, ``cloudflare global key: …``, ``heroku:
  <uuid>``): 12 to 200 token characters with a digit, not a date, a
  version, a domain or a path, and with the entropy of random text.
  The provider's name may be wrapped in markdown emphasis (``- **Plaid
  secret:** `…```) and followed by Makefile's ``?=``, ``::=`` or ``:::=``.
* A credential named in a sentence, its value after a colon or "is": "the
  Stripe API key for the staging box: …", "the access token of the bot is …"
  (an ``… key``
  after a word that makes it a credential, "API", "access", "secret", …; a
  token, a secret, a password, a passphrase; then at most a preposition and
  five words), or right after the noun with neither ("Weather API key
  Xk29…", "access token 9f8e…": 16 characters or more).  The value must
  read as generated, by the provider rule's test: "the key of the song: C
  minor" stays.  ``labels`` says more.
* Every value under ``data:`` or ``stringData:`` of a Kubernetes ``kind:
  Secret`` manifest, whatever its key is called (``kube``).
* Signed URLs: an Azure SAS's ``sig=``, an S3 or GCS presigned URL's
  ``X-Amz-Signature=`` / ``X-Goog-Signature=`` and ``X-Amz-Security-Token=``.
* URL credentials: in ``scheme://user:password@host`` only the *password* is
  redacted; the user name stays, so the note still says which account it was.
* ``Bearer <token>``, ``Authorization: <scheme> <token>`` (``Api-Token``,
  ``Splunk``, … too), ``Authorization: <token>`` with no scheme (16 or more
  characters with a digit and a letter), ``curl -u user:password``, ``curl -u
  KEY:`` (a key as the user name, 16 or more such characters) and ``.netrc``
  passwords: the token, key or password.
* Values assigned to a credential-named key: ``password``, ``passwd``,
  ``pwd``, ``pass``, ``passphrase``, ``secret``, ``token``, ``api_key``,
  ``apikey``, ``access_key``, ``secret_key``, ``private_key``,
  ``client_secret``, ``auth_token``, … also as the last word of a longer
  name (``DB_PASSWORD``, ``authToken``, ``X-Api-Key``), in the shapes
  ``key: value``, ``key = value``, ``key=value``, ``"key": "value"``,
  ``--key value`` and ``-H "Key: value"``.

  - A ``key: value`` or ``key = value`` line (YAML, ini, headers, notes such
    as ``- **Wifi password:** …``, memory entries after their ``date ·
    source ·`` head) gives the value *to the end of the line*; a quoted value
    gives the text inside the quotes; an unquoted ``key=value`` gives one
    shell word.
  - Not secrets: placeholders (empty, ``<…>``, ``${VAR}``, ``$VAR``,
    ``{{…}}``, ``xxx``, ``***``, ``…``, ``changeme``, ``your-password-here``,
    ``your_api_key``, ``example``, ``placeholder``, ``none``, ``null``,
    ``redacted``, an existing marker, ``!secret name``, an ENV_VAR_NAME),
    code (``os.environ[…]``, ``settings.TOKEN``, ``get_token()``,
    ``token=token``, type annotations), file paths, booleans, and short
    pointers such as ``Password: see 1Password``.
  - The word "password" in a sentence without ``:`` or ``=`` ("the password
    is in the vault") is prose, not an assignment.
  - Mid-line, ``… and password: hunter2`` gives the word after the colon;
    ``Password - hunter2`` at the start of a line gives a one-word value that
    holds a digit or a symbol.
  - Also placeholders: "password" in other languages (``hasło``,
    ``Passwort``, ``пароль``, …), nsswitch sources (``passwd: files
    systemd``) and letters-only values ending in "password" or "secret"
    (``fredpassword``).

* A password said in prose, in fifteen languages: "my password is X", "the
  passcode is 889231", "the password for Bitwarden is X", "Das Kennwort
  lautet X", "パスワードは X": the one word after the noun and its "is", when it does
  not read as prose (a digit or a symbol, or quoted; a PIN or passcode of 4
  to 12 digits).  ``phrases`` says more.
* A high-entropy fallback for tokens nothing above names: at least 32
  characters of ``[A-Za-z0-9+/_=-]`` mixing upper case, lower case and
  digits, with Shannon entropy of at least 3.6 bits a character and the
  frequent case/digit changes of random text.  Left alone: hex (git SHAs,
  sha256/md5 checksums, UUIDs, image digests), base64 of hex, repeating or
  sequential strings, identifiers made of words (CamelCase, snake_case,
  paths), anything inside a URL, a certificate, an SSH public key or a
  ``data:`` URI, and digests labelled ``sha256:``, ``h1:``, ``sha384-``, …

Known trade-offs (deliberate):

* A ``key: value`` line whose key names a credential is redacted whatever
  the value says, so ``Token: expires 2026-12-01`` or ``API key: rotate
  every 90 days`` lose their value.  Only values that start like a pointer
  ("see …", "in …", "stored …", "ask …") are kept.
* Phrase keys need a colon and at most four words; a bare ``pass`` or
  ``secret`` at the end of a phrase does not count (ski pass, boarding pass,
  "the secret to the crust"), ``client secret`` does.
* Not caught: a password in a markdown table cell, credential words in
  languages the prose rule does not know ("salasana:"), a password said in
  prose that reads as a word ("das Passwort ist geheim"), random strings
  shorter than 32 characters with no label, and hex-only secrets with no
  label.
* Caught although harmless: random-looking public identifiers of 32+
  characters (an IPFS CID, a base58 wallet address, an S3 request id) and a
  certificate body pasted without its BEGIN/END lines.

Redaction is idempotent: :func:`find_secrets` re-checks the redacted text and
widens its answer until the redacted text holds no secret, so
``redact(redact(x)) == redact(x)`` for every ``x``.

Speed (recall's index build checks every topic): most of a note can hold no
secret, and cheap looks prove it before a regex runs, without changing what
is found.  One bytes.translate and bytes.find pass finds the text's gate runs
(maximal runs of token characters, 12 or longer, ``_find_runs``); the token
rules run over the windows inside them, a rule that runs over the whole text
only when a gate run is as long as its pattern proves a match must be
(``_gate_length`` reads the pattern's parse tree), a provider word is looked
for only within reach of a run that can hold its value, and the high-entropy
check splits only the windows.  Every other regex runs only when the text
holds a literal each of its matches holds (``_holds``; a character such as
'<' or '=' is told by one memchr), the assignment keywords, the prose nouns
and the .netrc and curl words come from one shared words pass (``words``: a
regex for each family of words that share a letter, which the regex engine
skips to in C, instead of a search of the text for each word), and a flag
or dash keyword is tried only next to one.
tests/core/redact/test_redact_runs.py compares the result with every such
gate off.

The detectors live in this package's modules, each importing only those
before it: ``base`` (the marker, a span, the literal gates), ``words`` (the
shared words pass), ``rules`` (the token rules table), ``runs`` (gate runs,
windows, gate lengths, the token rules run over them), ``placeholders``,
``credentials``, ``assign``, ``phrases`` (passwords said in prose),
``entropy``, ``provider``, ``labels`` (a credential named in a sentence, its value after a colon) and
``kube`` (a Kubernetes Secret's data) and ``everyday`` (command-line passwords, ``email / password``,
door codes, seed phrases, backup codes, session cookies); this module puts them together.
"""

from __future__ import annotations

import codecs
import functools
from bisect import bisect_right
from dataclasses import dataclass

from .assign import _FLAG_REACH as _FLAG_REACH
from .assign import _KEY_TAIL_WORDS as _KEY_TAIL_WORDS
from .assign import _KEYWORDS as _KEYWORDS
from .assign import _assignments

# The modules, each importing only those before it.
from .base import _MARKER_RE, MARKER_FORMAT, _holds, _Span

# Internals the tests and benchmarks read as ``redact._name`` (tests/core/test_redact_runs.py sets them in
# every module that binds them).
from .base import _literal_hits as _literal_hits
from .base import _matches_at as _matches_at
from .base import _sparse as _sparse
from .base import _sre_parser as _sre_parser
from .credentials import _credentials, _pem, _pem_blocks
from .entropy import _ENTROPY_MIN_LEN as _ENTROPY_MIN_LEN
from .entropy import _entropy_runs as _entropy_runs
from .entropy import _high_entropy
from .everyday import _everyday
from .kube import _kube_secrets
from .labels import _labelled
from .phrases import _phrases
from .provider import _PROVIDER_REACH as _PROVIDER_REACH
from .provider import _PROVIDER_WORDS as _PROVIDER_WORDS
from .provider import _RUNS_CLEAN as _RUNS_CLEAN
from .provider import _RUNS_FROM as _RUNS_FROM
from .provider import _RUNS_WITH as _RUNS_WITH
from .provider import _provider_keyword
from .provider import _provider_windows as _provider_windows
from .provider import _provider_words_in as _provider_words_in
from .rules import _Rule as _Rule
from .runs import _GATE_CHARS as _GATE_CHARS
from .runs import _REPEATS as _REPEATS
from .runs import _RULE_PLAN as _RULE_PLAN
from .runs import _RUN_TABLE as _RUN_TABLE
from .runs import _WHOLE_TEXT_PLAN as _WHOLE_TEXT_PLAN
from .runs import _WINDOW_MIN_LEN as _WINDOW_MIN_LEN
from .runs import _WINDOW_TABLE as _WINDOW_TABLE
from .runs import _find_runs, _token_rules
from .runs import _gate_length as _gate_length
from .runs import _only as _only
from .runs import _Runs as _Runs
from .runs import _runs as _runs
from .words import _WORDS as _WORDS
from .words import _found as _found
from .words import _word_hits

__all__ = [
    "MARKER_FORMAT",
    "Secret",
    "contains_secret",
    "find_secrets",
    "redact",
    "redact_count",
]


@dataclass(frozen=True)
class Secret:
    """One secret: ``text[start:end]``, character offsets."""

    start: int
    end: int
    kind: str


def _merge(spans: list[_Span]) -> list[_Span]:
    """Sort, drop empties and join overlapping spans (the longest names it)."""
    out: list[_Span] = []
    best_len: list[int] = []
    for s, e, k in sorted(spans, key=lambda x: (x[0], -x[1])):
        if e <= s:
            continue
        if out and s < out[-1][1]:
            ps, pe, pk = out[-1]
            kind = k if (e - s) > best_len[-1] else pk
            best_len[-1] = max(best_len[-1], e - s)
            out[-1] = (ps, max(pe, e), kind)
        else:
            out.append((s, e, k))
            best_len.append(e - s)
    return out


def _lower(text: str) -> str:
    """Lower-cased *text* with the same offsets."""
    if not text.isascii():
        # A scan copy is all Latin-1: bytes.translate is several times faster
        # than lower() on a non-ASCII string, and gives the same (lower() maps
        # each character up to U+00FF to one character up to U+00FF).
        try:
            raw = text.encode("latin-1")
        except UnicodeEncodeError:
            pass
        else:
            return raw.translate(_LATIN1_LOWER).decode("latin-1")
    low = text.lower()
    if len(low) == len(text):  # lower() only ever lengthens (İ → i̇)
        return low
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_LATIN1_LOWER = "".join(chr(c).lower() for c in range(256)).encode("latin-1")
assert len(_LATIN1_LOWER) == 256


def _scan_copy(text: str) -> str:
    """*text* with every character above U+00FF replaced by U+0080.

    Same length and offsets, but stored one byte a character, which makes
    every regex pass over it cheaper; all patterns that run over the whole
    text are ASCII.  Values are always read from the original text.
    """
    if text.isascii():
        return text
    return text.encode("latin-1", _NON_LATIN1).decode("latin-1")


def _non_latin1(err: UnicodeError) -> tuple[str, int]:
    assert isinstance(err, UnicodeEncodeError)
    return "\x80" * (err.end - err.start), err.end


_NON_LATIN1 = "botmemory.redact.non-latin1"
codecs.register_error(_NON_LATIN1, _non_latin1)


_SCAN_CACHE_MAX_CHARS = 1 << 20


def _scan(text: str) -> list[_Span]:
    """Every secret span of *text*.  One write asks this of the same text several times (the store's redaction,
    the journal row's texts, the undoable check), so small texts are remembered: at most 16, each under 1 MB."""
    if len(text) > _SCAN_CACHE_MAX_CHARS:
        return _scan_text(text)
    return list(_scan_cached(text))


@functools.lru_cache(maxsize=16)
def _scan_cached(text: str) -> tuple[_Span, ...]:
    return tuple(_scan_text(text))


def _scan_text(text: str) -> list[_Span]:
    scan = _scan_copy(text)
    low = _lower(scan)
    runs = _find_runs(scan)
    # "BEGIN" alone is found faster than the whole line (its letters are rare
    # in lower-case prose, so the search skips ahead).
    blocks = _pem_blocks(scan) if _holds(scan, "BEGIN") and _holds(scan, "-----BEGIN ") else []
    found: list[_Span] = []
    found.extend(_pem(scan, blocks))
    found.extend(_token_rules(text, scan, low, runs))
    words = _word_hits(low)  # one pass for the keywords and nouns of the detectors below
    found.extend(_credentials(text, scan, low, words))
    found.extend(_assignments(text, low, scan, words))
    found.extend(_phrases(text, low, words))
    found.extend(_provider_keyword(text, scan, low, runs))
    found.extend(_labelled(text, scan, low, words))
    found.extend(_kube_secrets(text, low))
    found.extend(_everyday(text, low, runs.gate, words))
    specific = _merge(found)
    # Markers already in the text are never (part of) a secret.
    if _holds(scan, "«") and _holds(text, "«redacted "):
        specific = _drop_marker_only(text, specific)
    entropy = list(_high_entropy(text, scan, specific, blocks, runs.windows))
    return _merge(specific + entropy) if entropy else specific


def _drop_marker_only(text: str, spans: list[_Span]) -> list[_Span]:
    """Markers already in the text are never a secret, nor part of one alone."""
    markers = [(m.start(), m.end()) for m in _MARKER_RE.finditer(text)]
    if not markers:
        return spans
    kept: list[_Span] = []
    for sp in spans:
        pos = sp[0]
        i = bisect_right(markers, (pos, len(text) + 1)) - 1
        while (
            pos < sp[1]
            and 0 <= i < len(markers)
            and markers[i][0] <= pos < markers[i][1]
        ):
            pos = markers[i][1]
            i += 1
            if i < len(markers) and markers[i][0] != pos:
                break
        if pos < sp[1]:
            kept.append(sp)
    return kept


def _apply(
    text: str, spans: list[_Span]
) -> tuple[str, list[tuple[int, int, int, int]]]:
    """Replace *spans* with markers; also say where each marker landed."""
    out: list[str] = []
    markers: list[tuple[int, int, int, int]] = []
    pos = 0
    length = 0
    for s, e, _ in spans:
        out.append(text[pos:s])
        length += s - pos
        marker = MARKER_FORMAT.format(n=e - s)
        out.append(marker)
        markers.append((length, length + len(marker), s, e))
        length += len(marker)
        pos = e
    out.append(text[pos:])
    return "".join(out), markers


def _map_back(p: int, markers: list[tuple[int, int, int, int]], *, end: bool) -> int:
    """Map offset *p* of the redacted text to the original text."""
    starts = [m[0] for m in markers]
    i = (bisect_right(starts, p - 1) if end else bisect_right(starts, p)) - 1
    if i < 0:
        return p
    _, re_, s, e = markers[i]
    if end:
        return e if p <= re_ else e + (p - re_)
    return s if p < re_ else e + (p - re_)


def find_secrets(text: str) -> list[Secret]:
    """The secrets in *text*: non-overlapping, sorted by start."""
    spans = _scan(text)
    # Replacing a secret changes its neighbourhood; check the redacted text
    # again and widen the answer until it holds no secret.  Every round
    # covers more of the text (a finding made only of markers is dropped), so
    # this ends; in practice it is one extra scan when anything was found.
    while spans:
        redacted, markers = _apply(text, spans)
        extra = _scan(redacted)
        if not extra:
            break
        mapped = [
            (_map_back(a, markers, end=False), _map_back(b, markers, end=True), k)
            for a, b, k in extra
        ]
        widened = _merge(spans + mapped)
        if widened == spans:  # cannot happen; never loop forever
            break
        spans = widened
    return [Secret(s, e, k) for s, e, k in spans]


def redact_count(text: str) -> tuple[str, int]:
    """*text* with every secret replaced by its marker, and how many there were."""
    secrets = find_secrets(text)
    if not secrets:
        return text, 0
    redacted, _ = _apply(text, [(s.start, s.end, s.kind) for s in secrets])
    return redacted, len(secrets)


def redact(text: str) -> str:
    """*text* with every secret replaced by ``«redacted N chars»``."""
    return redact_count(text)[0]


def contains_secret(text: str) -> bool:
    """Whether *text* holds anything :func:`redact` would replace."""
    return bool(_scan(text))
