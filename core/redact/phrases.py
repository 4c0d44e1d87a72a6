"""Passwords said in prose: "my password is X", "the passcode is 889231", "mein Passwort ist X".

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret).

A credential noun (password, passcode, passphrase, PIN, and their words in German, French,
Spanish, Portuguese, Italian, Russian, Polish, Japanese and Chinese, the languages of the prose
tests), then the language's "is" (or a colon or dash), then one word. The word is a secret only
when it does not read as prose: it holds a digit or a symbol, or it is quoted; a PIN or passcode
is digits. "The password is in the vault", "my PIN is the usual one", "das Passwort ist geheim"
stay as they are. A regex is tried only where a noun is (found with ``str.find``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import _literal_hits, _Span
from .placeholders import _is_placeholder

# The nouns, lower-cased, as they are searched for (each starts a match).
_NOUNS = (
    "password", "passcode", "passphrase", "passwd", "pin", "pw",
    "passwort", "kennwort", "mot de passe", "contraseña", "contrasena", "clave", "senha",
    "palavra-passe", "palavra passe", "parola d'ordine", "пароль", "пин", "hasło", "haslo",
    "パスワード", "暗証番号", "密码", "密碼", "口令",
)
# noun, then its "is": the verb (with the article or "code" some languages put between), or ':' / '—'.
_IS = (
    r"(?:[ \t]+(?:code|number|no\.?|code[ \t]+number))?"      # pin code, PIN number
    r"(?:"
    r"[ \t]+(?:is|was|ist|lautet|war|est|était|es|era|é|era|è|to|jest|это|—|-|–)[ \t]+"
    r"|'s[ \t]+"                                              # password's X
    r"|[ \t]*[:：=][ \t]*"                                    # pw: X, 密码：X
    r"|[ \t]*(?:は|是|为|為|：)[ \t]*"                         # パスワードは X, 密码是 X
    r"|(?<=[ьоło])(?P<bare>[ \t]+)(?=[^\s]*[0-9])"            # мой пароль Tr0ub4dor, moje hasło X (no verb)
    r")"
)
# The value: one word (quoted, or up to white space / a CJK full stop), read from the original text.
_VALUE = r"(?P<value>\"[^\"\n]{1,100}\"|'[^'\n]{1,100}'|«[^»\n]{1,100}»|「[^」\n]{1,100}」|[^\s「」。、，]{3,100})"
_PHRASE_RE = re.compile(
    r"(?P<noun>" + "|".join(re.escape(n) for n in _NOUNS) + r")" + _IS + _VALUE,
    re.IGNORECASE,
)
_POSSESSIVE_RE = re.compile(r"(?:мой|наш|твой|ваш|moje|nasze|twoje|wasze)[ \t]+$", re.IGNORECASE)
_SYMBOLS = frozenset("!#$%&*+=?@^~|\\/<>")
_TRAILING = ".,;:)]}!?…。，、*_`~"
# What may stand right before a noun (a noun inside a word is not one: "spin", "opinion").
_WORD_CHAR = re.compile(r"\w")


_COUNT_RE = re.compile(
    r"[ \t]+(?:characters?|chars?|bits?|bytes?|digits?|letters?|symbols?|words?|long|days?|weeks?|months?|years?|"
    r"times|zeichen|stellen|caractères|caracteres|caratteri|cifre|dígitos|chiffres|символ\w*|цифр\w*|знак\w*|"
    r"znak\w*|cyfr\w*|文字|桁|位|个字符)",
    re.IGNORECASE,
)


def _reads_as_a_secret(value: str, noun: str) -> bool:
    if value[0] in "\"'«「":
        inner = value[1:-1].strip()
        return 3 <= len(inner) and " " not in inner and inner[0] not in "/~$<{[%" and not _is_placeholder(inner)
    if _is_placeholder(value) or value[0] in "<[{$%":
        return False
    if noun in ("pin", "пин", "暗証番号"):
        return value.isdigit() and 4 <= len(value) <= 12     # "Package pin: 0.190" is APT's
    if noun == "passcode" and value.isdigit():
        return 4 <= len(value) <= 12
    return _mixed(value)


def _mixed(value: str) -> bool:
    """A word that does not read as prose: a digit, or a symbol (not only at its end)."""
    return any(c.isdigit() for c in value) or any(c in _SYMBOLS for c in value)


def _phrases(text: str, low: str) -> Iterator[_Span]:
    """*low*: the lower-cased scan copy (same offsets as *text*; non-Latin-1 letters are U+0080 there,
    so those nouns are looked for in *text*, in their usual cases)."""
    starts: set[int] = set()
    for noun in _NOUNS:
        if noun.encode("utf-8").isascii() or all(ord(c) < 256 for c in noun):
            hits = list(_literal_hits(low, noun))
        else:
            hits = [p for form in {noun, noun.capitalize(), noun.upper()} for p in _literal_hits(text, form)]
        for p in hits:
            if p > 0 and _WORD_CHAR.match(text, p - 1) and noun.isascii():
                continue    # inside a word: "spin", "opinions", "typewriter"
            starts.add(p)
    end = 0
    for p in sorted(starts):
        if p < end:
            continue
        m = _PHRASE_RE.match(text, p)
        if m is None:
            continue
        noun = m.group("noun").lower()
        if m.group("bare") is not None and not _POSSESSIVE_RE.search(text, max(0, p - 12), p):
            continue    # without a verb only after "my": "wyśle hasło hello2u2" is a man page's example
        after = m.end("noun")
        if noun.isascii() and after < len(text) and text[after].isalnum():
            continue    # "pinned", "passwords"
        s, e = m.start("value"), m.end("value")
        value = text[s:e]
        if value[0] not in "\"'«「":
            lead = len(value) - len(value.lstrip("*_`~"))
            s, value = s + lead, value[lead:]
            stripped = value.rstrip(_TRAILING)
            e -= len(value) - len(stripped)
            value = stripped
        if len(value) < 3 or "://" in value or not _reads_as_a_secret(value, noun):
            continue    # a URL: its password is the URL rule's
        if value.isdigit() and _COUNT_RE.match(text, e):
            continue    # "the password is 128 bits", "PIN is 1234 digits long"? a count, not a value
        if any(n in value.lower() for n in ("password", "passwort", "pass")):
            continue    # "the password is 1Password-managed"
        if value[0] in "\"'«「":
            s, e = s + 1, e - 1
        end = e
        yield (s, e, "password")
