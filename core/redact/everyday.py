"""Credentials people keep in everyday notes, in shapes no key format names.

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret).

- A password on a command line: ``mysql -pS3cret``, ``sshpass -p 'pw'``, ``docker login -p pw`` — the value
  after the flag (``--password pw`` is an assignment: ``assign``).
- A login written as ``user / password`` after a login, credentials, creds or account label: "Router login:
  admin / Tr0ub4dor&3", "creds: deploy:Kx82!mQz77" — the password, when it reads as one and is not only words and
  short numbers.
- An account written as ``email / password``: "Netflix: priya@example.com / Kx82!mQz77" — the password,
  when it reads as one (a letter and a digit or a symbol, 6 or more characters, not an address or a path).
- A code that opens something: "the door code is 4471", "alarm code: 0852#", "gate code 1379" — 3 to 12
  digits (with ``#`` or ``*``) after a door, gate, alarm, garage, lock, safe, keypad, entry, lockbox or
  access code.
- A wallet's seed phrase: 12, 15, 18, 21 or 24 lower-case words of 3 to 8 letters (the shape of every BIP-39
  word list) after "seed phrase", "recovery phrase", "mnemonic phrase" (…) and a colon or "is".
- Backup and recovery codes: "recovery codes: 4f8a-92kd 7hd8-2k3j", "2FA backup code 8472-9931" — each code
  (letters and digits, a dash allowed, with a digit) after the label.
- A session cookie: in a ``Cookie:`` or ``Set-Cookie:`` line, the value of a cookie whose name says session,
  token, auth or login (8 characters or more).
- A disk's recovery key: BitLocker's eight groups of six digits, within 80 characters after "recovery key" or
  "BitLocker key".
- A product key: five groups of five capital letters and digits (both), within 80 characters after a product,
  license, licence, activation, registration, serial, CD, Windows or Office key (or code).
- A payment card: a number of 13 to 19 digits (spaces or dashes between groups allowed) that passes the Luhn
  check, from 40 characters before the word card (a credit card, Mastercard), Visa or Amex to 60 after; and in
  a text that names a card, a security code (3 or 4 digits) after CVV, CVC or "security code".
- A signed URL's signature: an Azure shared access signature's ``sig=`` (with ``sv=``, ``se=`` … beside it), a
  presigned S3 or GCS URL's ``X-Amz-Signature=`` / ``X-Goog-Signature=``.
- A login kept as base64 under an ``auth`` key (Docker's and Podman's ``config.json``, npm's ``_auth=``,
  ``basic_auth:``): the value, when it decodes to ``user:password``.
- A ``.pgpass`` line, ``host:port:database:user:password``: the password (a port of 2 to 5 digits or ``*``, a
  host with a letter or a dot, a user with a letter).

Each is tried only where its word is (``code``, ``cookie``, ``phrase``, ``key``, ``card``, ``cvv`` and ``sshpass``'s
``pass``, ``login``, ``cred`` and ``account`` come from the shared words pass; ``mysql`` and ``login`` only in a
text with a `` -p`` flag; an account only where ``@`` and `` / `` are; an ``auth`` key only in and just before the
gate runs, where a value of 12 characters or more must be; a ``.pgpass`` line only where a colon, a port and a colon
are); every regex is bounded and matched at those places only, so the time stays linear in the text (the recovery
key, product key and card shapes read the stretch around each label once).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator

from .base import _holds, _literal_hits, _plain_parts, _Span
from .placeholders import _is_placeholder
from .words import _word_hits

_SYMBOLS = frozenset("!#$%&*+=?@^~|\\<>;,.:-_")

# ----- a password on a command line

_QUOTED_OR_WORD = r"(?:(['\"])([^'\"\n]{1,100})\1|([^\s'\"]{1,100}))"
# mysql's -p takes its value attached: "-pS3cret" ("-p" alone asks for it; -P is the port).
_MYSQL_RE = re.compile(r"(?:mysql(?:dump|admin)?|mariadb(?:-dump|-admin)?)\b[^\n]{0,200}?[ \t]-p"
                       r"(?:(['\"])([^'\"\n]{1,100})\1|([^\s'\"-][^\s'\"]{0,99}))")
_CLI_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("mysql", _MYSQL_RE),
    ("mariadb", _MYSQL_RE),
    ("sshpass", re.compile(r"sshpass[ \t]+-p[ \t]*" + _QUOTED_OR_WORD)),
    ("login", re.compile(r"login\b[^\n]{0,200}?[ \t]-p(?:[ \t]+|=)" + _QUOTED_OR_WORD)),
)
_LOGIN_TOOLS = re.compile(r"(?:docker|podman|buildah|skopeo|nerdctl|oras|registry)[ \t]+$")


def _cli_passwords(text: str, low: str, words: dict[str, list[int]]) -> Iterator[_Span]:
    if not _holds(low, " -p"):   # every rule's flag ("--password …" is an assignment's: assign.py)
        return
    for needle, rx in _CLI_RULES:
        if needle == "sshpass":    # found by the words pass's "pass"
            hits = [p - 3 for p in words["pass"] if p >= 3 and low.startswith("sshpass", p - 3)]
        elif not _holds(low, needle):
            continue
        else:
            hits = list(_literal_hits(low, needle))
        for p in hits:
            if p > 0 and (low[p - 1].isalnum() or low[p - 1] == "_"):
                continue
            if needle == "login" and not _LOGIN_TOOLS.search(low, max(0, p - 24), p):
                continue    # "login -p" of something else: only a container registry's login
            m = rx.match(text, p)
            if m is None:
                continue
            group = 2 if m.group(2) is not None else 3
            value = m.group(group)
            if value[0] in "$<{%*[" or _is_placeholder(value):
                continue    # "$MYSQL_PWD", "<password>", "****": not the password itself
            yield (m.start(group), m.end(group), "password")


# ----- an account as "email / password"

_ACCOUNT_RE = re.compile(r"@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,6}[ \t]+/[ \t]+[*_`\"']{0,2}([^\s`\"']{6,100})")


def _reads_as_password(value: str) -> bool:
    """A word no one writes in prose: a letter, and a digit or a symbol; not an address, a path or a date."""
    if "@" in value or "://" in value or value[0] in "/~$<{[%." or _is_placeholder(value):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(c in _SYMBOLS for c in value[:-1])
    return has_alpha and (has_digit or has_symbol)


def _accounts(text: str, low: str) -> Iterator[_Span]:
    if not _holds(low, "@") or not _holds(low, " / "):
        return
    for m in _ACCOUNT_RE.finditer(text):
        at = m.start()
        if at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "._%+-"):
            continue    # "@handle / …" is no address
        s, e = m.span(1)
        while e > s and text[e - 1] in ".,;:)!?":
            e -= 1
        if e - s >= 6 and _reads_as_password(text[s:e]):
            yield (s, e, "password")


# ----- a login as "user / password" after its label

_LOGIN_RE = re.compile(
    r"s?[*_]{0,2}(?:[ \t]*[:=—–-]|[ \t]+(?:is|was))[*_]{0,2}[ \t]*[*_`\"']{0,2}"
    r"[^\s/:`\"'*|]{1,64}[*_`\"']{0,2}(?:[ \t]+/[ \t]+|:|[ \t]+\|[ \t]+)[*_`\"']{0,2}([^\s`\"']{6,100})")
_LOGIN_LABELS = ("login", "cred", "account")


def _logins(text: str, low: str, words: dict[str, list[int]]) -> Iterator[_Span]:
    """A login written as ``user / password`` (or ``user:password``) after a login, credentials, creds or
    account label: "Router login: admin / Tr0ub4dor&3", "creds: deploy:Kx82!mQz77" — the password, when it
    reads as one and is not only words and short numbers ("account: savings / 2024-budget" stays)."""
    for label in _LOGIN_LABELS:
        for p in words[label]:
            if p > 0 and low[p - 1].isalnum():
                continue    # inside a word: "blogin", "discredit"
            end = p + len(label)
            if label == "cred":
                if low.startswith("ential", end):
                    end += 6
                elif not low.startswith("s", end):
                    continue    # "credit", "credo"
            m = _LOGIN_RE.match(text, end)
            if m is None:
                continue
            s, e = m.span(1)
            while e > s and text[e - 1] in ".,;:)":   # a password may end in ! or ?
                e -= 1
            value = text[s:e]
            if e - s >= 6 and _reads_as_password(value) and value[0] != "\\" and not _plain_parts(value):
                yield (s, e, "password")


# ----- a code that opens something

_CODE_NOUN_BEFORE = re.compile(r"(?:door|gate|alarm|garage|lock|safe|keypad|entry|entrance|lockbox|key[ \t]?box|"
                               r"access|building[ \t]+door)[ \t]+$")
_CODE_VALUE = re.compile(r"(?:[ \t]+(?:is|was)[ \t]+|[ \t]*[:=][ \t]*|[ \t]+-[ \t]+|[ \t]+)[*_`\"']{0,2}"
                         r"([0-9][0-9#*]{2,11})(?![0-9A-Za-z])")


def _labelled(low: str, hits: list[int], before: re.Pattern[str], reach: int) -> list[int]:
    """The *hits* (a word's places) that have the word that makes them a label right before them."""
    return [q for q in hits if q and before.search(low, max(0, q - reach), q)]


def _after_label(low: str, hits: list[int], size: int, before: re.Pattern[str], reach: int,
                 after: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """At each hit of a word *size* long: *after* matched right after it, where *before* (anchored at its end)
    finds the word that makes it a label within *reach* characters before it ("door" before "code")."""
    for q in _labelled(low, hits, before, reach):
        m = after.match(low, q + size)
        if m is not None:
            yield m


def _codes(text: str, low: str, words: dict[str, list[int]]) -> Iterator[_Span]:
    for m in _after_label(low, words["code"], 4, _CODE_NOUN_BEFORE, 22, _CODE_VALUE):
        yield (m.start(1), m.end(1), "access_code")


# ----- a wallet's seed phrase

_SEED_BEFORE = re.compile(r"(?:seed|recovery|mnemonic|backup|secret|wallet)[ \t]+$")
_SEED_AFTER = re.compile(
    r"(?:[ \t]*\([^()\n]{0,30}\))?(?:[ \t]+(?:is|was)[ \t]*:?|[ \t]*[:=—-])[ \t]*[*_`\"']{0,2}"
    r"((?:[a-z]{3,8}(?:,[ \t]?|[ \t]))+[a-z]{3,8})(?![a-z])"
)
_SEED_COUNTS = (24, 21, 18, 15, 12)
_SEED_WORD = re.compile(r"[a-z]+")   # the run holds only its words and the separators between them


def _seed_phrases(text: str, low: str, words: dict[str, list[int]]) -> Iterator[_Span]:
    for m in _after_label(low, words["phrase"], 6, _SEED_BEFORE, 10, _SEED_AFTER):
        ends = [w.end() for w in _SEED_WORD.finditer(m.group(1))]
        n = next((c for c in _SEED_COUNTS if len(ends) >= c), 0)
        if n:
            yield (m.start(1), m.start(1) + ends[n - 1], "seed_phrase")


# ----- backup and recovery codes

_BACKUP_BEFORE = re.compile(r"(?:backup|recovery|2fa|two-factor|mfa|otp|one-time)[ \t]+$")
_BACKUP_AFTER = re.compile(r"s?(?:[ \t]+(?:are|is)[ \t]*:?|[ \t]*[:=—-]|[ \t])[ \t]*")
_BACKUP_CODE = re.compile(r"([a-z0-9]{3,10}(?:-[a-z0-9]{3,10}){0,3})(?:[ \t]*[,;]?[ \t]*)")


def _backup_codes(text: str, low: str, words: dict[str, list[int]]) -> Iterator[_Span]:
    for m in _after_label(low, words["code"], 4, _BACKUP_BEFORE, 14, _BACKUP_AFTER):
        pos = m.end()
        for _ in range(16):
            c = _BACKUP_CODE.match(low, pos)
            if c is None or not any(ch.isdigit() for ch in c.group(1)):
                break
            end = c.end(1)
            if end < len(low) and (low[end].isalnum() or low[end] in "-_"):
                break
            yield (c.start(1), end, "backup_code")
            pos = c.end()


# ----- a session cookie

_COOKIE_LINE = re.compile(r"(?:set-)?cookie[ \t]*:[ \t]*([^\n]*)")
_COOKIE_PAIR = re.compile(r"([a-z0-9_.-]{1,64})=([^;\s]{8,4096})")
_COOKIE_NAMES = ("sess", "sid", "token", "auth", "login", "remember", "jwt")


def _cookies(text: str, low: str, words: dict[str, list[int]]) -> Iterator[_Span]:
    done = 0   # the end of the last Cookie line read: a line is read once, however many "cookie"s it holds
    for q in words["cookie"]:
        if q < done:
            continue
        start = q - 4 if q >= 4 and low.startswith("set-", q - 4) else q
        if start and low[start - 1].isalnum():
            continue
        m = _COOKIE_LINE.match(low, start)
        if m is None:
            continue
        done = m.end()
        for pair in _COOKIE_PAIR.finditer(low, m.start(1), m.end(1)):
            if any(w in pair.group(1) for w in _COOKIE_NAMES) and not _is_placeholder(text[pair.start(2):pair.end(2)]):
                yield (pair.start(2), pair.end(2), "session_cookie")


# ----- a disk's recovery key, a product key, a payment card

_RECOVERY_KEY = re.compile(r"(?<![0-9-])[0-9]{6}(?:-[0-9]{6}){7}(?![0-9-])")
_RECOVERY_BEFORE = re.compile(r"(?:recovery|bitlocker)[ \t]+$")
_PRODUCT_BEFORE = re.compile(r"(?:product|license|licence|activation|registration|serial|cd|windows|office)[ \t-]+$")
_PRODUCT_KEY = re.compile(r"(?<![A-Za-z0-9-])[A-Z0-9]{5}(?:-[A-Z0-9]{5}){4}(?![A-Za-z0-9-])")
_CARD_NUMBER = re.compile(r"(?<![0-9A-Za-z.,/-])[0-9](?:[ -]?[0-9]){12,18}(?![0-9A-Za-z]|[.,/-][0-9])")
_CARD_CODE_VALUE = re.compile(r"2?[ \t]*(?:\([^()\n]{0,20}\))?(?:[ \t]+(?:is|was)[ \t]+|[ \t]*[:=#][ \t]*|[ \t]+)"
                              r"[*_`\"']{0,2}([0-9]{3,4})(?![0-9])")
_SECURITY_BEFORE = re.compile(r"(?:security|card[ \t]+verification)[ \t]+$")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _near(text: str, rx: re.Pattern[str], hits: list[int], back: int, ahead: int, longest: int) -> Iterator[re.Match[str]]:
    """The matches of *rx* that start from *back* characters before a hit (a label's place) to *ahead* after it;
    each stretch of text is searched once, however many hits it holds (*longest*: the longest match, so that
    what follows a match at a window's end is still seen)."""
    done = 0
    for q in hits:
        lo, hi = max(q - back, done, 0), q + ahead
        if lo >= hi:
            continue
        for m in rx.finditer(text, lo, min(len(text), hi + longest + 1)):
            if m.start() > hi:
                break
            yield m
        done = hi


def _keys_and_cards(text: str, low: str, words: dict[str, list[int]]) -> Iterator[_Span]:
    """A recovery key or a product key near its label ("recovery key", "product key"); a card number near the
    word card (Visa, Amex), and a security code after its label."""
    for m in _near(text, _RECOVERY_KEY, _labelled(low, words["key"], _RECOVERY_BEFORE, 12), 0, 80, 55):
        yield (m.start(), m.end(), "recovery_key")
    labels = sorted(_labelled(low, words["key"], _PRODUCT_BEFORE, 15) + _labelled(low, words["code"],
                                                                                   _PRODUCT_BEFORE, 15))
    for m in _near(text, _PRODUCT_KEY, labels, 0, 80, 29):
        key = m.group()
        if any(c.isdigit() for c in key) and any(c.isalpha() for c in key) and not _is_placeholder(key):
            yield (m.start(), m.end(), "product_key")
    cards = list(words["card"])
    for brand in ("visa", "amex"):
        if _holds(low, brand):
            cards.extend(_literal_hits(low, brand))
    if not cards:
        return
    cards.sort()
    for m in _near(text, _CARD_NUMBER, cards, 40, 60, 37):
        digits = m.group().replace(" ", "").replace("-", "")
        if 13 <= len(digits) <= 19 and len(set(digits)) > 1 and _luhn(digits):
            yield (m.start(), m.end(), "card_number")
    codes = [(q, 3) for q in words["cvv"]]
    if _holds(low, "cvc"):
        codes += [(q, 3) for q in _literal_hits(low, "cvc")]
    codes += [(q, 4) for q in _labelled(low, words["code"], _SECURITY_BEFORE, 24)]
    for q, size in codes:
        if q and (low[q - 1].isalnum() or low[q - 1] == "_"):
            continue
        code = _CARD_CODE_VALUE.match(low, q + size)
        if code is not None:
            yield (code.start(1), code.end(1), "card_code")


# ----- a signed URL's signature

_SAS_SIG = re.compile(r"(?<![a-z0-9_])sig=([A-Za-z0-9%+/=_-]{16,512})")
_SAS_BESIDE = re.compile(r"(?<![a-z0-9_])(?:sv|se|sp|spr|srt|ss)=")
_PRESIGNED = re.compile(r"x-(?:amz|goog)-signature=([0-9a-f]{32,512})(?![0-9a-f])")


def _signed_urls(text: str, low: str) -> Iterator[_Span]:
    """An Azure shared access signature's ``sig=`` (with ``sv=``, ``se=`` … in the same query or string) and a
    presigned S3 or GCS URL's ``X-Amz-Signature=`` / ``X-Goog-Signature=``: each grants access until it
    expires."""
    if _holds(low, "sig="):
        for m in _SAS_SIG.finditer(low):
            lo, hi = max(0, m.start() - 600), min(len(low), m.end() + 600)   # its line, 600 characters each way
            start = low.rfind("\n", lo, m.start()) + 1 or lo
            end = low.find("\n", m.end(), hi)
            query = low[start:end if end >= 0 else hi]
            if _SAS_BESIDE.search(query):
                yield (m.start(1), m.end(1), "sas_signature")
    if _holds(low, "-signature="):
        for m in _PRESIGNED.finditer(low):
            yield (m.start(1), m.end(1), "presigned_url")


_AUTH_VALUE = re.compile(r"[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9+/]{8,1024}={0,2})(?![A-Za-z0-9+/=])")


_AUTH_REACH = 24   # from the key's "auth" to where its value starts: 'auth"  :  "' and the like


def _base64_logins(text: str, low: str, gate: list[tuple[int, int]]) -> Iterator[_Span]:
    """A login kept as base64 under an ``auth`` key: a Docker or Podman ``config.json``'s ``"auth": "…"``, npm's
    ``_auth=…``, a ``basic_auth:`` — when the value decodes to ``user:password`` (printable, a user without
    white space, a password that is not a placeholder). Such a value is 12 characters or more, so it lies in a
    gate run (``runs.py``): "auth" is looked for only in the runs and just before them, not in the whole text."""
    done = 0
    for a, b in gate:
        p = low.find("auth", max(done, a - _AUTH_REACH), b)
        while p >= 0:
            m = _AUTH_VALUE.match(text, p + 4)
            if m is not None and _is_login(m.group(1)):
                yield (m.start(1), m.end(1), "base64_login")
            p = low.find("auth", p + 4, b)
        done = b


def _is_login(value: str) -> bool:
    try:
        plain = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return False
    user, colon, password = plain.partition(":")
    return (bool(colon) and bool(user) and len(password) >= 3 and plain.isprintable()
            and not any(c.isspace() for c in user) and not _is_placeholder(password))


# host:port:database:user:password, one entry to a line (PostgreSQL's .pgpass; a colon in a field is "\:")
_PGPASS_RE = re.compile(
    r"(?<![^\s`>])(\*|[A-Za-z0-9-]*[A-Za-z.][A-Za-z0-9.-]*):([0-9]{2,5}|\*):((?:[^\s:`\\]|\\.){1,63}):"
    r"(\*|(?:[^\s:`\\]|\\.)*[A-Za-z_](?:[^\s:`\\]|\\.)*):((?:[^\s:`\\]|\\.){1,200})(?=[ \t]*(?:`|$))",
    re.MULTILINE,
)
_PGPASS_GATE = re.compile(r":(?:[0-9]{2,5}|\*):")


def _pgpass_lines(text: str) -> Iterator[_Span]:
    """A ``.pgpass`` entry: its last field is the password (the other four say where it opens)."""
    if not _holds(text, ":") or _PGPASS_GATE.search(text) is None:
        return
    for m in _PGPASS_RE.finditer(text):
        if len(m.group(5)) >= 3 and not _is_placeholder(m.group(5)):
            yield (m.start(5), m.end(5), "pgpass")


def _everyday(text: str, low: str, gate: list[tuple[int, int]],
              words: dict[str, list[int]] | None = None) -> Iterator[_Span]:
    """*low*: the lower-cased scan copy (same offsets as *text*); *gate*: its gate runs (``runs.py``); *words*:
    the words pass over it (``_word_hits``), shared with the other detectors."""
    if words is None:
        words = _word_hits(low)
    yield from _cli_passwords(text, low, words)
    yield from _accounts(text, low)
    yield from _logins(text, low, words)
    yield from _codes(text, low, words)
    yield from _seed_phrases(text, low, words)
    yield from _backup_codes(text, low, words)
    yield from _cookies(text, low, words)
    yield from _keys_and_cards(text, low, words)
    yield from _signed_urls(text, low)
    yield from _base64_logins(text, low, gate)
    yield from _pgpass_lines(text)
