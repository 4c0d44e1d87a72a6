"""Passwords said in prose: "my password is X", "the passcode is 889231", "mein Passwort ist X".

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret).

A credential noun (password, passcode, passphrase, PIN, and their words in German, French,
Spanish, Portuguese, Italian, Russian, Polish, Dutch, Swedish, Norwegian, Danish, Turkish,
Japanese, Chinese and Korean; the Scandinavian ones also with their definite ending, "lösenordet"),
then the language's "is" (or a colon or dash) — or first what it is for, one to four words after a
preposition ("the password for Bitwarden is X", "das Passwort für den Router ist X"), then "is" or
a colon — then one word. The word is a secret only
when it does not read as prose: it holds a digit or a symbol, or it is quoted; a PIN or passcode
is digits. "The password is in the vault", "my PIN is the usual one", "das Passwort ist geheim"
stay as they are. A regex is tried only where a noun is: the Latin-1 nouns come from the shared words pass
(``words.py``, the assignment keywords' ``pass`` hits among them), the others from ``str.find`` in texts
that hold a letter beyond Latin-1 and a letter of theirs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import _holds, _literal_hits, _plain_parts, _Span
from .placeholders import _how_kept, _is_placeholder
from .words import _WORDS, _apart, _word_hits

# The nouns, lower-cased, as they are searched for (each starts a match).
_NOUNS = (
    "password", "passcode", "passphrase", "passwd", "pw", "pin",
    "passwort", "kennwort", "mot de passe", "contraseña", "contrasena", "senha",
    "palavra-passe", "palavra passe", "parola d'ordine", "пароль", "hasło",
    "wachtwoord", "lösenord", "losenord", "passord", "adgangskode", "şifre",
    "パスワード", "暗証番号", "密码", "密碼", "口令", "비밀번호",
)
# noun, then its "is": the verb (with the article or "code" some languages put between), or ':' / '—'.
_CODE = r"(?:[ \t]+(?:code|number|no\.?|code[ \t]+number))?"    # pin code, PIN number
_VERB = r"[ \t]+(?:is|was|ist|lautet|war|est|était|es|era|é|era|è|to|jest|это|är|var|er|—|-|–)[ \t]+"
_COLON = r"[ \t]*[:：=][ \t]*"                                  # pw: X, 密码：X
_IS = (
    _CODE + r"(?:" + _VERB
    + r"|'s[ \t]+"                                              # password's X
    + r"|" + _COLON
    + r"|[ \t]*(?:は|是|为|為|：|는|은)[ \t]*"                   # パスワードは X, 密码是 X, 비밀번호는 X
    + r"|(?<=[ьоło])(?P<bare>[ \t]+)(?=[^\s]*[0-9])"            # мой пароль Tr0ub4dor, moje hasło X (no verb)
    + r"|(?<=[dten])(?P<plain>[ \t]+)(?=[^\s]*[0-9])"            # wifi password Tr0ub4dor&3, PIN 4821 (no verb)
    + r")"
)
# Or what it is for, then the verb or a colon: "the master password for Bitwarden is X", "das Passwort für den
# Router ist X", "пароль от почты — X" (one to four words; never without the verb or colon after them).
_FOR = (r"[ \t]+(?:for|of|to|on|at|in|für|vom|pour|de|du|para|per|do|da|dla|для|от|к|voor|van|för|till|til)"
        r"(?:[ \t]+[^\s:：=]{1,40}){1,4}?")
_FOR_IS = _CODE + _FOR + r"(?:" + _VERB + r"|" + _COLON + r")"
# The value: one word (quoted, or up to white space / a CJK full stop), read from the original text.
_VALUE = r"(?P<value>\"[^\"\n]{1,100}\"|'[^'\n]{1,100}'|«[^»\n]{1,100}»|「[^」\n]{1,100}」|[^\s「」。、，]{3,100})"
_AFTER_NOUN_RE = re.compile(_IS + _VALUE, re.IGNORECASE)
_AFTER_FOR_RE = re.compile(_FOR_IS + _VALUE, re.IGNORECASE)
# A noun with a letter beyond Latin-1 is U+0080 in the scan copy: it is looked for in the text by
# a piece that holds for its usual cases (Пароль, пароль; Hasło, hasło), the noun then read back.
_WIDE_PIECES = {"ароль": "пароль", "asło": "hasło", "ifre": "şifre", "パスワード": "パスワード", "暗証番号": "暗証番号",
                "密码": "密码", "密碼": "密碼", "口令": "口令", "비밀번호": "비밀번호"}
# The Latin-1 nouns by a piece each holds, found once ("mot de passe", "palavra-passe" by their "pass").
_PIECES = {
    "pass": ("password", "passwd", "passwort", "passcode", "passphrase", "passord", "mot de passe",
             "palavra-passe", "palavra passe"),
    "wachtwoord": ("wachtwoord",), "senord": ("lösenord", "losenord"), "adgangskode": ("adgangskode",),
    "pw": ("pw",), "pin": ("pin",), "kennwort": ("kennwort",), "contrase": ("contraseña", "contrasena"), "senha": ("senha",),
    "parola d": ("parola d'ordine",),
}
assert {n for ns in _PIECES.values() for n in ns} == {n for n in _NOUNS if all(ord(c) < 256 for c in n)}
assert set(_PIECES) <= set(_WORDS)  # each piece's hits come from the words pass
# Each piece's nouns with where the piece is in each, the likeliest first.
_PIECE_NOUNS = {piece: tuple((n, n.index(piece)) for n in nouns) for piece, nouns in _PIECES.items()}

# At most one noun starts at a piece's hit, so the first found is the one, whatever the order.
assert all(_apart(a, i, b, j) for ns in _PIECE_NOUNS.values() for a, i in ns for b, j in ns if a != b)
# A character of each piece, looked for first (one memchr-like search, where a search for the piece in a text
# of wide characters costs several times more): one whose low byte is rare in text, as CPython's search for a
# character beyond Latin-1 runs memchr on that byte.
_WIDE_ANCHORS = {"ароль": "р", "asło": "ł", "ifre": "f", "パスワード": "パ", "暗証番号": "暗", "密码": "密", "密碼": "密",
                 "口令": "令", "비밀번호": "번"}
assert _WIDE_ANCHORS.keys() == _WIDE_PIECES.keys() and all(a in p for p, a in _WIDE_ANCHORS.items())
# What may follow a noun for _AFTER_NOUN_RE to match at all (one look before trying the regex).
_NEXT = frozenset(" \t:：='は是为為—-–는은")
# The Scandinavian nouns' definite ending ("lösenordet är X": the password is X).
_DEFINITE = {"lösenord": "et", "losenord": "et", "passord": "et", "adgangskode": "n"}
_POSSESSIVE_RE = re.compile(r"(?:мой|наш|твой|ваш|moje|nasze|twoje|wasze)[ \t]+$", re.IGNORECASE)
_SYMBOLS = frozenset("!#$%&*+=?@^~|\\/<>")
_TRAILING = ".,;:)]}!?…。，、*_`~"


_COUNT_RE = re.compile(
    r"[ \t]+(?:characters?|chars?|bits?|bytes?|digits?|letters?|symbols?|words?|long|days?|weeks?|months?|years?|"
    r"times|zeichen|stellen|caractères|caracteres|caratteri|cifre|dígitos|chiffres|символ\w*|цифр\w*|знак\w*|"
    r"znak\w*|cyfr\w*|文字|桁|位|个字符)",
    re.IGNORECASE,
)


def _reads_as_a_secret(value: str, noun: str) -> bool:
    if value[0] in "\"'«「":
        inner = value[1:-1].strip()
        return len(inner) >= 3 and " " not in inner and inner[0] not in "/~$<{[%" and not _is_placeholder(inner)
    if value[0] in "<[{$%":
        return False
    if noun in ("pin", "пин", "暗証番号"):
        shaped = value.isdigit() and 4 <= len(value) <= 12     # "Package pin: 0.190" is APT's
    elif noun == "passcode" and value.isdigit():
        shaped = 4 <= len(value) <= 12
    else:
        shaped = _mixed(value)
    return shaped and not _is_placeholder(value)    # the dearest test last


def _generated(value: str) -> bool:
    """A password given with no verb before it must look made, not named: 6 or more characters, a letter and
    a digit, and not only words and short numbers ("Tr0ub4dor&3", "Summer2024!"; not "reset-2024")."""
    return (len(value) >= 6 and any(c.isalpha() for c in value) and any(c.isdigit() for c in value)
            and not _plain_parts(value))


def _mixed(value: str) -> bool:
    """A word that does not read as prose: a digit, or a symbol (not only at its end)."""
    return any(c.isdigit() for c in value) or any(c in _SYMBOLS for c in value)


def _phrases(text: str, low: str, words: dict[str, list[int]] | None = None) -> Iterator[_Span]:  # noqa: C901
    """*low*: the lower-cased scan copy (same offsets as *text*; letters beyond Latin-1 are U+0080
    there, so those nouns are looked for in *text*, by :data:`_WIDE_PIECES`); *words*: the words pass over
    it (``_word_hits``), shared with the other detectors."""
    if words is None:
        words = _word_hits(low)
    hits: list[tuple[int, str]] = []
    for piece, nouns in _PIECE_NOUNS.items():     # the noun that starts at each piece's hit
        for q in words[piece]:
            for noun, back in nouns:      # "mot de passe", "palavra-passe": found by their "pass"
                p = q - back
                if p >= 0 and low.startswith(noun, p):
                    if p > 0 and (text[p - 1].isalnum() or text[p - 1] == "_"):   # what \w matches
                        break   # inside a word: "spin", "opinions", "typewriter"
                    hits.append((p, noun))
                    break
    if "\x80" in low:   # Cyrillic, Polish's ł, Japanese, Chinese
        for piece, noun in _WIDE_PIECES.items():
            if not _holds(text, _WIDE_ANCHORS[piece]):
                continue
            back = len(noun) - len(piece)
            for q in _literal_hits(text, piece):
                p = q - back
                if p >= 0 and text[p:p + len(noun)].lower() == noun:
                    hits.append((p, noun))
    end = 0
    for p, noun in sorted(hits):
        after = p + len(noun)
        if noun in _DEFINITE and low.startswith(_DEFINITE[noun], after):
            after += len(_DEFINITE[noun])   # lösenordet, passordet, adgangskoden: "the password"
        if p < end or after >= len(text) or text[after] not in _NEXT and text[after] != "'":
            continue
        m = _AFTER_NOUN_RE.match(text, after) or _AFTER_FOR_RE.match(text, after)
        if m is None:
            continue
        said = m.re is _AFTER_FOR_RE
        if not said and m.group("bare") is not None and not _POSSESSIVE_RE.search(text, max(0, p - 12), p):
            continue    # without a verb only after "my": "wyśle hasło hello2u2" is a man page's example
        plain = not said and m.group("plain") is not None
        s, e = m.start("value"), m.end("value")
        value = text[s:e]
        if value[0] not in "\"'«「":
            lead = len(value) - len(value.lstrip("*_`~"))
            s, value = s + lead, value[lead:]
            stripped = value.rstrip(_TRAILING)
            e -= len(value) - len(stripped)
            value = stripped
        if len(value) < 3 or "://" in value or "pass" in value.lower():
            continue    # a URL: its password is the URL rule's; "the password is 1Password-managed"
        if not _reads_as_a_secret(value, noun) or _how_kept(value):
            continue
        if plain and noun not in ("pin", "passcode") and not _generated(value):
            continue    # right after the noun, no verb: "password reset-2024", "password policy v2" are not
        if value.isdigit() and _COUNT_RE.match(text, e):
            continue    # "the password is 128 bits": a count, not a value
        if value[0] in "\"'«「":
            s, e = s + 1, e - 1
        end = e
        yield (s, e, "password")
