"""Values that are not secrets: placeholders, code references, types, paths, prose pointers.

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret)."""

from __future__ import annotations

import re

from .base import _MARKER_RE

_NON_ALNUM_RE = re.compile(r"[^A-Za-z0-9]+")


# Values that are not secrets.
_PLACEHOLDER_WORDS = frozenset(
    {
        "",
        "changeme",
        "changeit",
        "example",
        "placeholder",
        "none",
        "null",
        "nil",
        "undefined",
        "redacted",
        "removed",
        "hidden",
        "secret",
        "secrets",
        "password",
        "passwd",
        "pass",
        "pwd",
        "token",
        "apikey",
        "key",
        "notset",
        "unset",
        "empty",
        "tbd",
        "todo",
        "na",
        "dummy",
        "required",
        "optional",
        "string",
        "str",
        "env",
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "sensitive",
        "masked",
        "omitted",
        "elided",
        "same",
        "prompt",
        "ask",
        "unknown",
        "read",
        "write",
        "readwrite",
        "readonly",
        "inherit",
        "auto",
        "default",
        "generate",
        "generated",
        "random",
    }
)
# "password" and "secret" in other languages, as documentation writes
# "--password=hasło".
_LOCAL_PLACEHOLDERS = frozenset(
    {
        "hasło", "haslo", "passwort", "kennwort", "geheimnis", "motdepasse",
        "mot_de_passe", "mot-de-passe", "contraseña", "contrasena", "clave",
        "senha", "palavra-passe", "parola", "password_segreta", "wachtwoord",
        "salasana", "lösenord", "losenord", "adgangskode", "passord", "heslo",
        "jelszó", "şifre", "sifre", "пароль", "секрет", "ключ", "パスワード",
        "暗号", "密码", "口令", "密碼", "비밀번호", "κωδικός", "סיסמה", "كلمة_المرور",
    }
)
# nsswitch.conf: "passwd: files systemd" names sources, not a password.
_NSSWITCH_RE = re.compile(
    r"(?:(?:files|compat|systemd|ldap|nis|nisplus|sss|db|winbind|dns|mdns4?_minimal|"
    r"myhostname|resolve|mymachines|hesiod|cache|\[[!A-Za-z =]{1,40}\])[ \t]*)+"
)
_PLACEHOLDER_TAILS = ("password", "passwd", "pass", "secret", "pwd")
_PLACEHOLDER_RE = re.compile(
    r"""
    ^(?:
        <[^<>]*>                              # <your password>
      | \[[^\[\]]*\]                          # [REDACTED]
      | \$\{\{?[^{}]*\}?\}                    # ${VAR}, ${{ secrets.X }}
      | \$\(?[A-Za-z_][A-Za-z0-9_]*\)?        # $VAR, $(VAR)
      | %[A-Za-z_][A-Za-z0-9_]*%              # %VAR%
      | %\([A-Za-z_]+\)s                      # %(password)s
      | \{\{[^{}]*\}\}                        # {{ token }}
      | \{[A-Za-z_][A-Za-z0-9_.]*\}           # {password}
      | ![A-Za-z][A-Za-z0-9_-]*(?:[ \t].*)?   # !secret name, !vault |, !ENV tag
      | (?-i:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)   # DATABASE_PASSWORD: a name (capitals only:
      | (?-i:[a-z]+(?:_[a-z]+)+)              # rcj3_llt977… is a value), db_password_file
      | [xX*•·._\-#?…]+                       # xxx, ***, ..., ---
      | (?:x{2,}|X{2,})(?:[-_][xX]+)*         # xxxx-xxxx
      | (?:[A-Za-z0-9]{1,12}[_-])*[A-Za-z0-9]{0,12}?
        (?:x{4,}|X{4,}|\*{3,}|\.{3,}|…|<[^<>]*>)  # sk-..., AKIAXXXXXXXX, ghp_xxxx
      | (?:your|my|insert|enter|put|paste|add|replace|change|some|the)
        [-_ ]?[A-Za-z _-]*?
        (?:password|passwd|pass|pwd|pw|key|token|secret|here|value|me)
                                              # your_api_key, your-password-here
    )$
    """,
    re.VERBOSE | re.IGNORECASE,
)
_CODE_REF_RE = re.compile(
    r"""
    (?:^|[^A-Za-z0-9_])
    (?: os\.(?:environ|getenv) | getenv\s*\( | process\.env | ENV\[ | env\s*\(
      | System\.getenv | Environment\.GetEnvironmentVariable | config\s*\(
      | settings\. | secrets\. | vault\( | keyring\. | getpass\( | input\( )
    """,
    re.VERBOSE,
)
# Code, not a value: settings.API_TOKEN, get_token(), Foo("x"), creds[1].
_CODE_EXPR_RE = re.compile(
    r"(?:new[ \t]+|await[ \t]+)?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"
    r"(?:[(\[].*|[,;])?|"
    r"(?:new[ \t]+|await[ \t]+)?[A-Za-z_][A-Za-z0-9_.]*[ \t]*[(\[].*|"
    r"\(.*\)[,;]?|\[.*\][,;]?"
)
_COLOR_RE = re.compile(r"#[0-9a-fA-F]{3,8}[,;]?")
# A type annotation, not a value: "password: str", "token: Optional[str] = None".
_TYPE_RE = re.compile(
    r"(?:typing\.|t\.)?(?:str|bytes|int|bool|float|Any|string|number|boolean|String|"
    r"SecretStr|SecretBytes|Optional|Union|List|list|Dict|dict|None)\b"
    r"(?:\[[^\n]*\]?)?(?:[ \t]*\|[ \t]*[A-Za-z]+)*[ \t]*(?:=[^\n]*)?[,;)]?(?:[ \t]*\{)?"
)
# An unquoted code expression: "token = Name.Function if x else y".
_CODE_LINE_RE = re.compile(
    r"[A-Za-z_][A-Za-z0-9_.]*(?:\(.*?\))?[ \t]+"
    r"(?:if|or|and|else|for|in|is|not|\+|-|\*|/|%|==|!=|\?\?|\|\||&&|\?)[ \t]"
)
_PATH_RE = re.compile(r"(?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]*)+|[A-Za-z]:\\[^\s]*")
_NUMBER_RE = re.compile(r"[0-9]{1,6}|[0-9]+\.[0-9]+")
# A ':' value that is a sentence pointing elsewhere, not a password:
# "password: see 1Password", "token: in the team vault".
_PROSE_POINTER_RE = re.compile(
    r"""^(?:see|in|ask|stored|saved|kept|same|check|from|on|via|lives|rotated|
    changed|managed|set|read|loaded|comes|provided|generated|use|using|is|was|
    are|not|no|none|never|only|sent|shared|handled|given|held|look|found|
    it|it's|its|they|we|the|this|that|a|an)\b[ ]+\S""",
    re.IGNORECASE | re.VERBOSE,
)


def _is_placeholder(value: str) -> bool:
    v = value.strip().strip("\"'`").strip()
    if _MARKER_RE.sub("", v).strip(" \t,;") == "":
        return True
    if _PLACEHOLDER_RE.match(v):
        return True
    norm = _NON_ALNUM_RE.sub("", v.lower())
    if norm in _PLACEHOLDER_WORDS:
        return True
    if norm.endswith("here") and len(norm) < 40:  # "your-password-here"
        return True
    if v.lower() in _LOCAL_PLACEHOLDERS or _NSSWITCH_RE.fullmatch(v):
        return True
    if norm.isalpha() and norm.endswith(_PLACEHOLDER_TAILS) and len(norm) < 24:
        return True  # "fredpassword", "mysecret", "dbpass": a documentation example
    if "example" in norm or "placeholder" in norm or "changeme" in norm:
        return True
    return bool(_CODE_REF_RE.search(v) or _PATH_RE.fullmatch(v)) or _metavariables(v)


_METAVAR_SPLIT_RE = re.compile(r"[=_-]")


def _metavariables(v: str) -> bool:
    """A usage line's ``NAME=VALUE`` (in any script: ``İSİM=DEĞER``, ``ИМЯ=ЗНАЧЕНИЕ``; a suffix after an
    apostrophe, as Turkish writes it, and a closing bracket aside): capital words around an ``=``, what a man page puts for a
    value, not one."""
    head = v.split("’", 1)[0].split("'", 1)[0].rstrip("]}).,;:")
    return "=" in head and len(head) <= 60 and all(
        part.isalpha() and part.isupper() for part in _METAVAR_SPLIT_RE.split(head))


# How a password is kept or guarded, not a password: "the password is sha256-hashed", "is SHA-512", "is
# bcrypt2-hashed", "is 2FA-protected", "is AES256-encrypted".
_HOW_KEPT_RE = re.compile(
    r"(?:sha-?\d{1,3}|sha3-?\d{3}|md[45]|bcrypt\d?|scrypt|argon2(?:id|i|d)?|pbkdf2(?:-sha-?\d{1,3})?|base(?:64|32)|"
    r"aes-?\d{3}|rsa-?\d{4}|rot13|utf-?8|2fa|mfa|totp|u2f|fido2)"
    r"(?:[-_ ]?(?:hashed|encoded|encrypted|protected|salted|based|secured|enabled|only|'d))?",
    re.IGNORECASE,
)


def _how_kept(value: str) -> bool:
    """Whether *value*, said after "the password is", tells how it is kept ("sha256-hashed", "SHA-512",
    "2FA-protected"), not what it is."""
    return _HOW_KEPT_RE.fullmatch(value) is not None
