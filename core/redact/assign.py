"""Assignments: a credential-named key (config line, keyword argument, flag, phrase key) and its value.

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from .base import _holds, _matches_at, _max_width, _Span, _sparse
from .credentials import _NETRC_RE
from .placeholders import (
    _CODE_EXPR_RE,
    _CODE_LINE_RE,
    _COLOR_RE,
    _NON_ALNUM_RE,
    _NUMBER_RE,
    _PROSE_POINTER_RE,
    _TYPE_RE,
    _how_kept,
    _is_placeholder,
)
from .words import _found, _word_hits

# Cheap pre-filters (over the lower-cased text): the lines worth looking at
# for assignments.
_KEYWORDS = ("pass", "pw", "psk", "secret", "token", "key")
_AFTER_KEYWORD_RE = re.compile(
    r"[a-z0-9_.\-]{0,64}+(?:[ \t]+(?:string|str|&str|\[\]byte|secretstr|const))?"
    r"(?:[\"'`][ \t]*,|[\"'`*_ \t]{0,8}+(?:[.?]{1,2}=|[=:>]))"
)
# Bounded: "--" then an unbounded [a-z0-9-]* rescanned a run of dashes from
# every position (quadratic on "-----…").
_FLAG_HEAD = r"--(?<![a-z0-9-]--)(?:[a-z0-9][a-z0-9-]{0,40}?)?"
_FLAG_KEYWORD_RE = re.compile(_FLAG_HEAD + "(?:pass|pwd|pw|secret|token|key)")
_NETRC_KEYWORD_RE = re.compile(r"machine[ \t]")
# "--" starts a flag match at most this far before its keyword.
_FLAG_REACH = _max_width(_FLAG_HEAD)
_DASH_KEYWORD_RE = re.compile(r"(?:password|passwd|passphrase|pwd)[ \t]+-[ \t]")

# A key names a credential when its last word ends with one of these (PGPASSWORD, authtoken) ...
_KEY_TAIL_SUFFIXES = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
)
# ... or is one of these.
_KEY_TAIL_WORDS = frozenset(
    {
        *_KEY_TAIL_SUFFIXES,
        "pass",
        "pwd",
        "pw",
        "psk",          # a Wi-Fi pre-shared key (wpa_supplicant's psk=, WIFI_PSK=)
        "accountkey",
        "signingkey",
        "encryptionkey",
        "masterkey",
        "authkey",
        "appkey",
        "sessionkey",
        "licensekey",
        "secretkeybase",
    }
)
_PASSWORDISH = frozenset({"password", "passwd", "passphrase", "pass", "pwd", "pw", "psk"})
# In a phrase key ("Wifi password:", "Client secret:") a bare "pass" is a ski
# pass or a boarding pass, and a bare "secret" needs a qualifier.
_PHRASE_SECRET_QUALIFIERS = frozenset(
    {
        "client",
        "app",
        "api",
        "webhook",
        "shared",
        "signing",
        "consumer",
        "jwt",
        "session",
        "oauth",
        "totp",
        "2fa",
        "mfa",
        "otp",
        "backup",
    }
)


def _phrase_key_ok(key: str) -> bool:
    parts = _key_parts(key)
    if not parts or parts[-1] in ("pass", "pw", "pwd"):
        return False
    if parts[-1] == "secret":
        return len(parts) >= 2 and parts[-2] in _PHRASE_SECRET_QUALIFIERS
    return True


_CAMEL_SPLIT_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _key_parts(key: str) -> list[str]:
    parts: list[str] = []
    for chunk in _NON_ALNUM_RE.split(key):
        parts.extend(p.lower() for p in _CAMEL_SPLIT_RE.findall(chunk))
    while parts and parts[-1].isdigit():
        parts.pop()
    return parts


@lru_cache(maxsize=4096)
def _secret_key_kind(key: str) -> str | None:
    """'password' / 'secret' if *key* names a credential, else None."""
    parts = _key_parts(key)
    if not parts:
        return None
    for k in (1, 2, 3):
        if len(parts) >= k:
            tail = "".join(parts[-k:])
            if tail in _KEY_TAIL_WORDS:
                return "password" if tail in _PASSWORDISH else "secret"
    for suffix in _KEY_TAIL_SUFFIXES:
        if parts[-1].endswith(suffix):
            return "password" if suffix in _PASSWORDISH else "secret"
    return None


# "key: value" / "key = value" at the start of a line (YAML, .env, ini,
# headers, notes, and memory entries after their "date · source ·" head).
# Up to three leading words make a phrase key ("Wifi password:", "GitHub API
# token:"), only with ':'.
_LINE_KV_RE = re.compile(
    r"""
    ^[ \t]*
    (?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?
    (?:>[ \t]?)*
    (?:[^·\n]{0,120}·[ \t]*){0,4}?       # entry head: 2026-09-25 · from chat "X" ·
    (?:(?:export|set|setx|declare(?:[ \t]+-x)?|local|readonly|ENV|ARG)[ \t]+)?
    (?P<open>[*_`"']{0,2})
    (?P<key>[A-Za-z$][A-Za-z0-9_.\-]{0,60}(?:[ ][A-Za-z][A-Za-z0-9_.\-'’]{0,30}){0,3}?)
    (?P<close>[*_`"']{0,2})
    (?P<sp1>[ \t]*)(?P<sep>:{1,3}=|=>|\?\??=|\.=|[:=])(?![=:/])(?P=close)?[*_]{0,2}(?P<sp2>[ \t]*)
    (?P<value>[^\n]*)
    """,
    re.VERBOSE | re.MULTILINE,
)

# "key=value" anywhere (shell, URL query strings, code, docker -e).
_INLINE_EQ_RE = re.compile(
    r"""
    (?<![A-Za-z0-9_.$])
    (?P<key>[A-Za-z_$][A-Za-z0-9_.\-]{0,60})
    (?:[ \t]+(?:string|String|str|&str|\[\]byte|SecretStr|const))?   # Go's var token string = "…"
    [ \t]*(?::{1,3}=|=>|\?\??=|\.=|=)(?![=>~])[ \t]*
    (?P<value>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"'&#,;()\[\]{}<>`]+)
    """,
    re.VERBOSE,
)

# "key": value anywhere (JSON, Python/JS dicts, YAML flow mappings).
_QUOTED_KEY_RE = re.compile(
    r"""
    (?P<q>["'])(?P<key>[A-Za-z_$][A-Za-z0-9_.\- ]{0,60})(?P=q)
    [ \t]*(?::|=>|=)[ \t]*
    (?P<value>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"',;)\]}]+)
    """,
    re.VERBOSE,
)
_FLOW_KEY_RE = re.compile(
    r"(?<=[{,])[ \t]*(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,60}):[ \t]+"
    r"(?P<value>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|[^\s\"',}\]]+)"
)
# A header inside a quoted string: curl -H "X-Api-Key: abc".
_QUOTED_HEADER_RE = re.compile(
    r"(?<=[\"'])(?P<key>[A-Za-z][A-Za-z0-9-]{0,60}):[ \t]*(?P<value>[^\"'\n]+)(?=[\"'])"
)
# --password hunter2 / --api-token=… command-line flags.
_FLAG_RE = re.compile(
    r"(?<![A-Za-z0-9_-])--(?P<key>[A-Za-z0-9][A-Za-z0-9-]{0,60})(?:[ \t]+|=)"
    r"(?P<value>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|[^\s\"'|;&)]+)"
)


# System.setProperty("API_TOKEN", "…"), os.environ.setdefault('SECRET', '…'): a call's key and value.
_CALL_PAIR_RE = re.compile(
    r"\([ \t]*(?P<q>[\"'])(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,60})(?P=q)[ \t]*,[ \t]*"
    r"(?P<value>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
)
# <apiToken>…</apiToken>, the value on the same line or on its own (XML, .NET and Maven settings).
_XML_ELEMENT_RE = re.compile(
    r"<(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,60})(?:[ \t][^<>\n]{0,200})?>[ \t\r\n]{0,200}"
    r"(?P<value>[^<>\s]{3,1024})[ \t\r\n]{0,200}</(?P=key)[ \t]*>"
)
# <add key="Password" value="…"/>, <entry name="apiToken" value="…"/> (NuGet, .NET, Java properties).
_XML_ATTR_RE = re.compile(
    r"(?:key|name|KEY|NAME|Key|Name)=(?P<q>[\"'])(?P<key>[A-Za-z_][A-Za-z0-9_.\- ]{0,60})(?P=q)[ \t]+"
    r"(?:value|VALUE|Value)=(?P<value>\"[^\"\n]*\"|'[^'\n]*')"
)


def _xml(text: str, scan: str, low: str) -> Iterator[_Span]:
    """Credential-named XML elements and key/value attributes (the value read from *text*).

    Each regex runs only where its literal is; a text without '<' or '=' (most notes) is told by one memchr."""
    if _holds(scan, "<") and _holds(low, "</"):
        for m in _XML_ELEMENT_RE.finditer(scan):
            kind = _secret_key_kind(m.group("key"))
            value = text[m.start("value"):m.end("value")]
            if kind is not None and _accept_value(value, kind, inline=False, colon=False, code=False):
                yield (m.start("value"), m.end("value"), kind)
    if _holds(scan, "=") and (_holds(low, 'value="') or _holds(low, "value='")):
        for m in _XML_ATTR_RE.finditer(scan):
            kind = _secret_key_kind(m.group("key"))
            s, e = m.start("value") + 1, m.end("value") - 1
            if kind is not None and e > s and _accept_value(text[s:e], kind, inline=True, colon=False, code=False):
                yield (s, e, kind)


_TRAILING_COMMENT_RE = re.compile(r"[ \t]+(?:#|//).*")
_STRING_PREFIX_RE = re.compile(r"[bBrRuUfF]{1,2}(?=[\"'])")  # b"…", f"…", r'…'
_SHELL_WORD_RE = re.compile(r"<[^<>\n]*>|[^\s]+")  # "<generate one>" is one word
_HEADER_FLAG_RE = re.compile(r"(?:-H|--header)[ \t]+$")


def _accept_value(
    value: str, kind: str, *, inline: bool, colon: bool, code: bool = True
) -> bool:
    """Whether *value*, assigned to a credential-named key, is a secret.

    *code*: the value is unquoted and might be a variable name; *inline*: it
    sits mid-line (a keyword argument, not a config line).
    """
    if len(value) < 3 or _is_placeholder(value) or _how_kept(value):   # "password: sha256-hashed"
        return False
    if kind != "password" and _NUMBER_RE.fullmatch(value):
        return False
    if _CODE_EXPR_RE.fullmatch(value) or _COLOR_RE.fullmatch(value):
        return False
    if colon and _TYPE_RE.fullmatch(value):
        return False
    if code:
        value = _TRAILING_COMMENT_RE.sub("", value)
        if _CODE_EXPR_RE.fullmatch(value):
            return False
        ident = value.rstrip(",;)")
        if ident.isidentifier():   # a name in any script ("seçeneğiyle", a man page's word, is one)
            # token=token, api_key=API_KEY, password = key_password,
            # token = Error: a variable, not a value.
            if not any(c.isdigit() for c in ident):
                return False
            if inline and (ident.islower() or ident.isupper()) and "_" in ident:
                return False
        if _CODE_LINE_RE.match(value):
            return False
    return not (colon and _PROSE_POINTER_RE.match(value))


def _value_span(
    line: str, vstart: int, value: str, *, to_eol: bool
) -> tuple[int, int, str] | None:
    """Where the secret sits inside a raw value text."""
    if not value:
        return None
    prefix = _STRING_PREFIX_RE.match(value)
    if prefix is not None:  # b"…", f"…", r'…' string literals
        vstart += prefix.end()
        value = value[prefix.end() :]
    q = value[0]
    if q in "\"'`":
        # Quoted: the text up to the matching close quote.
        i = 1
        while i < len(value):
            c = value[i]
            if c == "\\" and q != "`":
                i += 2
                continue
            if c == q:
                inner = value[1:i]
                return (vstart + 1, vstart + 1 + len(inner), inner)
            i += 1
        if not to_eol:
            return None
        inner = value[1:]
        return (vstart + 1, vstart + len(value), inner)
    if to_eol:
        return (vstart, vstart + len(value), value)
    m = _SHELL_WORD_RE.match(value)
    if m is None:
        return None
    return (vstart, vstart + m.end(), m.group())


def _assignments(
    text: str, low: str, scan: str | None = None, words: dict[str, list[int]] | None = None
) -> Iterator[_Span]:
    """*words*: the words pass over *low* (``_word_hits``), shared with the other detectors."""
    yield from _xml(text, text if scan is None else scan, low)
    if words is None:
        words = _word_hits(low)
    line_starts: set[int] = set()

    def hits() -> Iterator[Iterator[int]]:
        # The keywords come from the shared words pass, far faster than a
        # regex pass each; a regex is tried only where its keyword is.
        at = {word: words[word] for word in _KEYWORDS}
        for word in _KEYWORDS:  # a keyword followed by ':' or '='
            yield (p for p in at[word] if _AFTER_KEYWORD_RE.match(low, p + len(word)))
        # A flag's keyword starts 2 to _FLAG_REACH characters after its "--".
        keywords = [q for found in at.values() for q in found]
        if _sparse(keywords, low):
            flags: set[int] = set()
            for p in keywords:
                d = low.find("--", max(0, p - _FLAG_REACH), p)
                while d >= 0:
                    flags.add(d)
                    d = low.find("--", d + 1, p)
            yield _matches_at(low, flags, _FLAG_KEYWORD_RE)
        else:
            yield (m.start() for m in _FLAG_KEYWORD_RE.finditer(low))
        if _found(words, "machine"):
            yield _matches_at(low, words["machine"], _NETRC_KEYWORD_RE)
        # Every _DASH_KEYWORD_RE match starts with "pass" or "pwd".
        dash = at["pass"] + [p for p in at["pw"] if low.startswith("pwd", p)]
        if _sparse(dash, low):
            yield _matches_at(low, dash, _DASH_KEYWORD_RE)
        else:
            yield (m.start() for m in _DASH_KEYWORD_RE.finditer(low))

    for positions in hits():
        line_end = -1
        for p in positions:
            if p <= line_end:
                continue  # same line as the previous hit
            line_starts.add(text.rfind("\n", max(0, line_end), p) + 1)
            line_end = text.find("\n", p)
            if line_end < 0:
                line_end = len(text)
    for ls in sorted(line_starts):
        le = text.find("\n", ls)
        if le < 0:
            le = len(text)
        yield from _assignments_in_line(text, ls, le)


# "… and password: hunter2" after other text on the line, and the note
# shape "Password - hunter2" at the start of a line.
_INLINE_CRED_RE = re.compile(
    r"(?<![^ \t*`\"'(>])(?P<key>password|passwd|passphrase|pwd|api[_ -]?key|"
    r"secret[_ -]?key|access[_ -]?token|auth[_ -]?token|token|secret)"
    r"(?P<sep>[ \t]{0,2}:[ \t]{0,4}+|[ \t]{1,4}-[ \t]{1,4}+)(?P<value>\S[^\n]*)",
    re.IGNORECASE,
)
# After "Password - " only one word that does not read as prose: it holds
# a digit or a symbol ("Password - hunter2"; not "password - the group …").
_DASH_VALUE_RE = re.compile(r"\S*[0-9!#$%&*+/=?@^~|\\][^\s]*")
_LINE_HEAD_RE = re.compile(r"[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?[*_`>]*[ \t]*")


def _inline_credentials(line: str, ls: int) -> Iterator[_Span]:
    for m in _INLINE_CRED_RE.finditer(line):
        key = m.group("key")
        kind = _secret_key_kind(key)
        if kind is None:
            continue
        dash = "-" in m.group("sep")
        if dash and (
            key.lower() == "pwd"  # "pwd - print name of working directory"
            or kind != "password"
            or not _LINE_HEAD_RE.fullmatch(line, 0, m.start())
            or not _DASH_VALUE_RE.fullmatch(m.group("value").rstrip())
        ):
            continue
        rest = m.group("value").rstrip()
        word_m = _SHELL_WORD_RE.match(rest)
        if word_m is None:
            continue
        word = word_m.group().rstrip(".,;)]}")
        colon = dash or ":" in m.group("sep")
        if not _accept_value(rest, kind, inline=False, colon=colon, code=False):
            continue
        start = ls + m.start("value")
        if rest[0] in "\"'`":
            got = _value_span(line, m.start("value"), rest, to_eol=False)
            if got is None or "://" in got[2] or not _accept_value(
                got[2], kind, inline=True, colon=colon, code=False
            ):
                continue
            yield (ls + got[0], ls + got[1], kind)
            continue
        if "://" in word:
            continue  # a URL: its password is found by the URL rule
        if dash:  # the whole value, as for "key: value"
            yield (start, start + len(rest), kind)
        elif _accept_value(word, kind, inline=True, colon=colon, code=True):
            yield (start, start + len(word), kind)


def _quotes_pair(open_: str, close: str) -> bool:
    """A key opened with a quote must be closed with the same quote."""
    return all((q in open_) == (q in close) for q in "\"'`")


def _assignments_in_line(text: str, ls: int, le: int) -> Iterator[_Span]:
    line = text[ls:le]

    m = _LINE_KV_RE.match(line)
    if (
        m is not None
        and not line.lstrip().startswith("#")
        and _quotes_pair(m.group("open"), m.group("close"))
    ):
        key = m.group("key")
        kind = _secret_key_kind(key)
        sep = m.group("sep")
        phrase = " " in key
        spaced_colon = sep == ":" and m.group("sp1") and not m.group("sp2")
        if (
            kind is not None
            and (not phrase or (sep == ":" and _phrase_key_ok(key)))
            and not spaced_colon
        ):
            raw = m.group("value")
            vstart = m.start("value")
            # key=value with no spaces is a shell word; everything else
            # (YAML, ini, headers, notes) runs to the end of the line.
            shellish = sep == "=" and not m.group("sp1") and not m.group("sp2")
            got = _value_span(line, vstart, raw, to_eol=not shellish)
            if got is not None:
                s, e, val = got
                val_stripped = val.rstrip()
                e -= len(val) - len(val_stripped)
                unquoted = raw[:1] not in "\"'`"
                code = unquoted and (
                    (sep != ":" and not shellish)
                    or val_stripped.endswith((",", ";", ")"))
                )
                if _accept_value(
                    val_stripped, kind, inline=False, colon=sep == ":", code=code
                ):
                    yield (ls + s, ls + e, kind)

    # inline: an unquoted value may be a variable name (token=token).
    quoted_line = '"' in line or "'" in line
    for rx, inline, needed in (
        (_INLINE_EQ_RE, True, "=" in line),
        (_QUOTED_KEY_RE, True, quoted_line),
        (_FLOW_KEY_RE, True, "{" in line or "," in line),
        (_QUOTED_HEADER_RE, False, quoted_line),
        (_CALL_PAIR_RE, True, quoted_line and "(" in line),
        (_FLAG_RE, False, "--" in line),
    ):
        if not needed:
            continue
        for im in rx.finditer(line):
            key = im.group("key")
            kind = _secret_key_kind(key)
            if kind is None:
                continue
            raw = im.group("value")
            vstart = im.start("value")
            got = _value_span(line, vstart, raw, to_eol=False)
            if got is None:
                continue
            s, e, val = got
            if rx is _FLAG_RE and val.startswith("-"):
                continue
            if (
                rx is _QUOTED_HEADER_RE
                and "-" not in key
                and not _HEADER_FLAG_RE.search(line, 0, max(0, im.start() - 1))
            ):
                continue
            quoted = raw[:1] in "\"'`"
            colon = rx is _QUOTED_HEADER_RE or rx is _FLOW_KEY_RE
            if _accept_value(val, kind, inline=inline, colon=colon, code=not quoted):
                yield (ls + s, ls + e, kind)

    yield from _inline_credentials(line, ls)

    nm = _NETRC_RE.match(line) if "machine" in line else None
    if nm is not None and not _is_placeholder(nm.group(1)):
        yield (ls + nm.start(1), ls + nm.end(1), "password")
