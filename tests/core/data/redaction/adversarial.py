"""Adversarial inputs for the redactor's linear-time check.

Each maker returns *size* characters built to make a careless pattern
backtrack: long runs of token characters, separator repeats, long base64,
credential words by the thousand, prefixes that almost start a key, and
30,000 random tokens.  Seeded, so every run measures the same text.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable

AN = string.ascii_letters + string.digits


def _fill(unit: str) -> Callable[[int], str]:
    return lambda size: (unit * (size // len(unit) + 1))[:size]


def _random_tokens(size: int) -> str:
    r = random.Random(30000)
    toks = [
        "".join(r.choice(AN + "_-") for _ in range(r.randint(8, 64)))
        for _ in range(30_000)
    ]
    unit = " ".join(toks) + "\n"
    return _fill(unit)(size)


def _long_base64(size: int) -> str:
    r = random.Random(64)
    return base64.b64encode(r.randbytes(size)).decode()[:size]


def _token_run(size: int) -> str:
    r = random.Random(7)
    return "".join(r.choice(AN) for _ in range(size))


MAKERS: dict[str, Callable[[int], str]] = {
    "one run of token characters": _token_run,
    "'a' repeated": _fill("a"),
    "'=' repeated": _fill("="),
    "':' repeated": _fill(":"),
    "'-' repeated": _fill("-"),
    "'_' repeated": _fill("_"),
    "'=:-_' mixed": _fill("=:-_ _-:="),
    "long base64": _long_base64,
    "'password: ' repeated": _fill("password: "),
    "'password=' repeated": _fill("password="),
    "'Password - ' repeated": _fill("Password - "),
    "'api_key=' and a word": _fill("api_key=x "),
    "provider names": _fill("cloudflare twitter heroku secret "),
    "provider names glued": _fill("CLOUDFLARE_TWITTER_HEROKU_"),
    "almost-prefixes": _fill("sk-ghp_xoxb-AKIAglpat-eyJ.SG.hvs.dp.pt.dapi"),
    "digits and pipes": _fill("1234567890123456|"),
    "'Q~' repeated": _fill("abc8Q~"),
    "'-----BEGIN RSA PRIVATE KEY-----' lines": _fill("-----BEGIN RSA PRIVATE KEY-----\n"),
    "'eyJ' repeated": _fill("eyJ"),
    "URL with a huge password": lambda n: "https://u:" + "p" * (n - 12) + " x",
    "30,000 random tokens": _random_tokens,
    # The everyday shapes (everyday.py): each found by a word that starts a bounded look.
    "cookie pairs on one line": _fill("cookie: sid=abcdefgh1234; "),
    "seed phrase labels on one line": _fill("seed phrase: abc def ghi "),
    "'door code' repeated": _fill("door code 12345 "),
    "'email / password' repeated": _fill("a@b.co / Kx82!mQz77 "),
    "'backup code' repeated": _fill("backup code 1234-5678 "),
    "card numbers and codes": _fill("card 4111 1111 1111 1111 cvv 123 "),
    "card, digits without end": _fill("card 4111 1111 1111 111 1 2 3 4 5 6 7 8 9 0 "),
    "recovery keys": _fill("recovery key 123456-234567-345678-456789-567890-678901-789012-890123 "),
    "product keys": _fill("product key XJ7K2-9QRTB-M4PVW-H8DFG-3CYNK-"),
    "signed URL queries": _fill("?sv=2021&sig=AbCdEfGh1234567890%2B&x-amz-signature=fe5f80f77d5fa3beca038a248ff0"),
    "'psk=' repeated": _fill("psk="),
    "base64 logins under auth keys": _fill('"auth":"cHJpeWE6S3g4MiFtUXo3Nw==",_auth=auth:'),
    "pgpass fields without end": _fill("db:5432:app:"),
    "'password for' and words": _fill("password for a b c d e f "),
    "Scandinavian and Korean nouns": _fill("lösenordet adgangskode wachtwoord 비밀번호 şifre "),
    "login labels and slashes": _fill("login: a / creds: b:c / "),
}
