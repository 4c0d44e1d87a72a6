from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from itertools import pairwise
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from botmemory.core.redact import (
    MARKER_FORMAT,
    Secret,
    contains_secret,
    find_secrets,
    redact,
    redact_count,
)
from tests.conftest import examples

DATA = Path(__file__).parents[1] / "data" / "redaction"


def _load_fake_secrets() -> ModuleType:
    # Loaded by path: the data folder is not a package, and the module must
    # not be importable as "secrets" (that would shadow the stdlib).
    name = "botmemory_test_fake_secrets"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, DATA / "fake_secrets.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


FAKE = _load_fake_secrets()
CASES = FAKE.CASES


def marker(n: int) -> str:
    return MARKER_FORMAT.format(n=n)


def assert_nothing_left(secret: str, redacted: str) -> None:
    """No 12-character piece of *secret* survives in *redacted*."""
    assert secret not in redacted
    w = 12
    for i in range(max(1, len(secret) - w + 1)):
        piece = secret[i : i + w]
        if len(piece) == w and piece.strip("-= \n") == piece:
            assert piece not in redacted, f"{piece!r} of the secret survived"


def render_notes() -> tuple[str, str, list[tuple[int, int]]]:
    """secrets.md with its slots filled: (text, expected redaction, secret spans)."""
    template = (DATA / "secrets.md").read_text(encoding="utf-8")
    text: list[str] = []
    expected: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = length = 0
    for m in re.finditer(r"⟪(\w+)⟫|⟦(.*?)⟧", template):
        plain = template[pos : m.start()]
        text.append(plain)
        expected.append(plain)
        length += len(plain)
        secret = FAKE.BY_NAME[m.group(1)].secret if m.group(1) else m.group(2)
        text.append(secret)
        spans.append((length, length + len(secret)))
        length += len(secret)
        expected.append(marker(len(secret)))
        pos = m.end()
    text.append(template[pos:])
    expected.append(template[pos:])
    return "".join(text), "".join(expected), spans


def prose_files() -> list[Path]:
    return sorted((DATA / "prose").glob("*.md"))


def describe(text: str, secrets: list[Secret]) -> str:
    lines = []
    for s in secrets:
        ls = text.rfind("\n", 0, s.start) + 1
        le = text.find("\n", s.end)
        lines.append(
            f"  {s.kind}: {text[s.start : s.end]!r}\n    in line: {text[ls : le if le >= 0 else None]!r}"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------
# API
# --------------------------------------------------------------------------


def test_marker_format_and_secret_type():
    assert MARKER_FORMAT == "«redacted {n} chars»"
    s = Secret(3, 9, "password")
    assert (s.start, s.end, s.kind) == (3, 9, "password")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.start = 4  # type: ignore[misc]


def test_empty_and_plain_text():
    assert find_secrets("") == []
    assert redact("") == ""
    assert redact_count("just a note") == ("just a note", 0)
    assert not contains_secret("just a note")


# --------------------------------------------------------------------------
# Every format, one at a time
# --------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_format_is_caught(case):
    text = case.context.format(case.secret)
    found = find_secrets(text)
    assert [s.kind for s in found] == [case.kind], describe(text, found)
    start = case.context.index("{}")
    assert (found[0].start, found[0].end) == (start, start + len(case.secret))
    redacted, n = redact_count(text)
    assert n == 1
    assert redacted == case.context.format(marker(len(case.secret)))
    assert_nothing_left(case.secret, redacted)
    assert contains_secret(text)
    assert redact(redacted) == redacted


# --------------------------------------------------------------------------
# The notes file: 30+ secrets in realistic markdown
# --------------------------------------------------------------------------


def test_notes_file_every_secret_caught_and_the_rest_kept():
    text, expected, spans = render_notes()
    assert len(spans) >= 30
    found = find_secrets(text)
    got = [(s.start, s.end) for s in found]
    missed = [text[a:b][:60] for a, b in spans if (a, b) not in got]
    extra = [s for s in found if (s.start, s.end) not in spans]
    assert not missed, f"missed: {missed}"
    assert not extra, "flagged something that is not a secret:\n" + describe(
        text, extra
    )
    redacted, n = redact_count(text)
    assert n == len(spans)
    assert redacted == expected  # right N for each marker, surroundings untouched
    for a, b in spans:
        assert_nothing_left(text[a:b], redacted)
    assert redact(redacted) == redacted
    assert find_secrets(redacted) == []


def test_notes_file_covers_every_case():
    template = (DATA / "secrets.md").read_text(encoding="utf-8")
    used = re.findall(r"⟪(\w+)⟫", template)
    assert sorted(used) == sorted(c.name for c in CASES)


# --------------------------------------------------------------------------
# Ordinary notes: nothing to redact
# --------------------------------------------------------------------------


def test_prose_corpus_is_big_enough():
    files = prose_files()
    total = sum(f.stat().st_size for f in files)
    hand_written = sum(
        f.stat().st_size for f in files if not f.name.startswith("generated-")
    )
    assert total >= 200_000
    assert hand_written >= 60_000


@pytest.mark.parametrize("path", prose_files(), ids=lambda p: p.name)
def test_prose_has_no_secrets(path):
    text = path.read_text(encoding="utf-8")
    found = find_secrets(text)
    assert found == [], f"{path.name}: false positives:\n" + describe(text, found)
    assert redact(text) == text


# --------------------------------------------------------------------------
# Placeholders and prose around credential words
# --------------------------------------------------------------------------

NOT_SECRETS = [
    "password:",
    "password: ",
    "password: <your password>",
    "password: <password>",
    "password: ${DB_PASSWORD}",
    "password: $DB_PASSWORD",
    "password: {{ db_password }}",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "password: xxx",
    "password: xxxxxxxx",
    "password: ***",
    "password: ********",
    "password: ...",
    "password: …",
    "password: changeme",
    "password: your-password-here",
    "api_key: your_api_key",
    "API_KEY=YOUR_API_KEY_HERE",
    "api_key: example",
    "secret: placeholder",
    "password: none",
    "token: null",
    "password: redacted",
    "password: «redacted 12 chars»",
    "password: «redacted 3 chars» «redacted 4 chars»",
    'password: ""',
    "password = ''",
    '"password": "<your password>"',
    "DB_PASSWORD=${DB_PASSWORD:-devpassword}",
    "OPENAI_API_KEY=sk-...",
    "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "postgres://user:password@localhost/db",
    "postgres://user:${DB_PASSWORD}@localhost/db",
    "curl -H 'Authorization: Bearer $TOKEN' https://api.example.com",
    'curl -H "Authorization: Bearer <token>" https://api.example.com',
    'curl -u "$USER:$PASS" https://example.com',
    "api_key: !secret openweathermap_api_key",
    "secretKey: DATABASE_PASSWORD",
    "password_file: /run/secrets/db_password",
    "PWD=/home/mira/projects",
    "token_count: 4096",
    "max_tokens=1024",
    "password_min_length: 12",
    "The password is in the vault.",
    "the password is in the vault",
    'Password: see 1Password, item "Nordea"',
    "Ski pass: buy online the day before",
    "Boarding pass: in the Wallet app",
    "Secret to the crust: an ice cube",
    "Key takeaways: ship smaller",
    "Token budget: 24k per conversation",
    "Bearer authentication is configured in the gateway",
    "The bearer token expires after an hour.",
    "client = OpenAI(api_key=api_key)",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "token = get_token()",
    "self.password = password",
    "def login(user: str, password: str) -> None:",
    "password: Optional[str] = None",
    'headers = {"Authorization": f"Bearer {token}"}',
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_placeholders_and_prose_are_left_alone(text):
    found = find_secrets(text)
    assert found == [], describe(text, found)
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: hunter2-Correct", "hunter2-Correct"),
        ("password: correct horse battery staple", "correct horse battery staple"),
        ("  password: s3cr3t # rotated monthly", "s3cr3t # rotated monthly"),
        ("- **Wifi password:** Blåbär-Kaffe-1987", "Blåbär-Kaffe-1987"),
        (
            '- 2026-09-02 · from chat "Home" · Router admin password: Gl4ss-Harbour',
            "Gl4ss-Harbour",
        ),
        ("passwd=Tr0ub4dor&3", "Tr0ub4dor&3"),
        ("pwd: Hagel-31", "Hagel-31"),
        ("secret: hush-hush 42", "hush-hush 42"),
        ("token=t0k-8842-Orchard", "t0k-8842-Orchard"),
        ("api_key: Qm3vT8zLw2RkX9pN", "Qm3vT8zLw2RkX9pN"),
        ("apikey=9Xr4Lm2Qv8Tz6Wn1", "9Xr4Lm2Qv8Tz6Wn1"),
        ("access_key = AcK-77-Juniper", "AcK-77-Juniper"),
        ("client_secret: c5Gz8Wq2-Nv4Lk7", "c5Gz8Wq2-Nv4Lk7"),
        ("auth_token='ZyX987-wvu654'", "ZyX987-wvu654"),
        ('private_key = "MC4CAQAwBQYDK2VwBCIEIJ7q"', "MC4CAQAwBQYDK2VwBCIEIJ7q"),
        ('{"user": "mira", "password": "pa$$w0rd!"}', "pa$$w0rd!"),
        ("'api_key': 'Lk7Rt1Mx9Pj3'", "Lk7Rt1Mx9Pj3"),
        ("export GITHUB_TOKEN=t0ken-not-real-1234", "t0ken-not-real-1234"),
        ("PGPASSWORD=salt&Pepper77 psql -h db", "salt&Pepper77"),
        ("mysqldump --password Birch-Log-81 shop", "Birch-Log-81"),
        ("https://example.com/cb?access_token=Zq81Lm0Xp2&state=xyz", "Zq81Lm0Xp2"),
        ("curl -u mira:Kl0ckT0rn! https://webdav.example.org/", "Kl0ckT0rn!"),
        (
            "machine example.org login mira password Fjord-Light-0612",
            "Fjord-Light-0612",
        ),
    ],
)
def test_assignment_values_are_redacted(text, secret):
    start = text.index(secret)
    found = find_secrets(text)
    assert [(s.start, s.end) for s in found] == [(start, start + len(secret))], (
        describe(text, found)
    )
    assert (
        redact(text) == text[:start] + marker(len(secret)) + text[start + len(secret) :]
    )


def test_password_line_runs_to_end_of_line():
    text = "notes\npassword: two words and more  \nnext line"
    assert (
        redact(text)
        == f"notes\npassword: {marker(len('two words and more'))}  \nnext line"
    )


# --------------------------------------------------------------------------
# Specific shapes
# --------------------------------------------------------------------------


def test_jwt():
    token = FAKE.jwt("test-jwt")
    text = f"cookie: session={token}; Path=/"
    assert redact(text) == f"cookie: session={marker(len(token))}; Path=/"
    assert find_secrets(f"id_token {token}")[0].kind == "jwt"


def test_url_credentials_keep_user_and_host():
    text = "DATABASE_URL=postgres://shop:pL4nt-p0ts-9x@db.internal:5432/shop"
    assert (
        redact(text)
        == f"DATABASE_URL=postgres://shop:{marker(len('pL4nt-p0ts-9x'))}@db.internal:5432/shop"
    )
    text = "redis://:qz7-Fennel-44@cache:6379/0 and https://mira:h4rb0ur@git.example.org/x.git"
    assert redact(text) == (
        f"redis://:{marker(13)}@cache:6379/0 and https://mira:{marker(7)}@git.example.org/x.git"
    )
    # An '@' in the password: the host starts after the last one.
    assert (
        redact("ftp://bob:p@ss@files.example.org/")
        == f"ftp://bob:{marker(4)}@files.example.org/"
    )
    # No password, no secret.
    assert (
        redact("ssh://git@github.com/mira/notes.git")
        == "ssh://git@github.com/mira/notes.git"
    )
    assert redact("https://user@example.org/") == "https://user@example.org/"


def test_bearer_and_basic():
    tok = "ya-7f3Kq9ZpL2mW8xN4cR6tV1bY5hJ0gD"
    text = f'curl -H "Authorization: Bearer {tok}" https://api.example.com/v1/me'
    assert (
        redact(text)
        == f'curl -H "Authorization: Bearer {marker(len(tok))}" https://api.example.com/v1/me'
    )
    assert find_secrets(f"Bearer {tok}")[0].kind == "bearer_token"
    basic = "bWlyYTpoNHJiMHVyLUwxZ2h0cw=="
    assert (
        redact(f"Authorization: Basic {basic}")
        == f"Authorization: Basic {marker(len(basic))}"
    )


def test_tokens_inside_urls():
    tg = FAKE.BY_NAME["telegram"].secret
    url = f"https://api.telegram.org/bot{tg}/sendMessage?chat_id=42"
    assert (
        redact(url)
        == f"https://api.telegram.org/bot{marker(len(tg))}/sendMessage?chat_id=42"
    )
    key = FAKE.BY_NAME["google_api"].secret
    url = f"https://maps.googleapis.com/maps/api/staticmap?center=Helsinki&key={key}&size=600x300"
    assert redact(url) == url.replace(key, marker(len(key)))


@pytest.mark.parametrize("name", ["pem_openssh", "pem_rsa", "pem_pkcs8", "pem_ec"])
def test_pem_private_key_block_is_one_secret(name):
    block = FAKE.BY_NAME[name].secret
    assert block.count("\n") >= 2
    text = f"Deploy key:\n\n{block}\n\nThe public half is in authorized_keys.\n"
    found = find_secrets(text)
    assert len(found) == 1 and found[0].kind == "private_key"
    assert (
        redact(text)
        == f"Deploy key:\n\n{marker(len(block))}\n\nThe public half is in authorized_keys.\n"
    )


def test_pem_in_json_with_escaped_newlines():
    block = FAKE.BY_NAME["pem_pkcs8"].secret.replace("\n", "\\n")
    text = (
        '{"type": "service_account", "private_key": "'
        + block
        + '\\n", "client_email": "x@y.iam"}'
    )
    redacted = redact(text)
    assert "PRIVATE KEY" not in redacted
    assert redacted.startswith('{"type": "service_account", "private_key": "«redacted ')
    assert redacted.endswith('", "client_email": "x@y.iam"}')


def test_truncated_private_key_is_redacted_through_its_body():
    block = FAKE.BY_NAME["pem_rsa"].secret
    truncated = "\n".join(block.split("\n")[:6])  # BEGIN line + 5 base64 lines, no END
    text = f"pasted half a key:\n{truncated}\n\nAnd then the note goes on.\n"
    redacted = redact(text)
    assert (
        redacted
        == f"pasted half a key:\n{marker(len(truncated))}\n\nAnd then the note goes on.\n"
    )


def test_public_keys_and_certificates_are_not_secrets():
    cert = (
        "-----BEGIN CERTIFICATE-----\n"
        "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
        "RTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\n"
        "VQQDExlCYWx0aW1vcmUgQ3liZXJUcnVzdCBSb290MB4XDTAwMDUxMjE4NDYwMFoX\n"
        "-----END CERTIFICATE-----"
    )
    pub = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK7qLm9xRt3vWz2Kc8Np5Yb1Hs4Df6Ga0Ej7Ui9OkPz mira@laptop"
    for t in (
        cert,
        pub,
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----",
    ):
        assert find_secrets(t) == []


def test_mentions_of_key_headers_in_code_are_not_keys():
    code = '_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"\n_END = b"-----END OPENSSH PRIVATE KEY-----"\n'
    assert find_secrets(code) == []


# --------------------------------------------------------------------------
# High-entropy fallback
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "token",
    [
        "Vq8Lz3Nw7Kp2Xr9Mt4Bc6Hy1Js5Df0Ga",
        "b9dW2kQx7LmZ4vRt8NyP3sHj6FgC1aE5xY",
        "Zk3+Qm9/Lp2xTw8Rv4Nc7Hb1Js6Gd0Fa5Ey2Ku=",
        "q1W2e3R4t5Y6u7I8o9P0a1S2d3F4g5H6j7K8l9Z0",
    ],
)
def test_high_entropy_tokens_are_caught(token):
    text = f"someone pasted {token} in the chat"
    found = find_secrets(text)
    assert [(s.kind, s.start, s.end) for s in found] == [
        ("high_entropy", 15, 15 + len(token))
    ]


@pytest.mark.parametrize(
    "word",
    [
        "3f9a1c2e7b4d8f60a5e2c19b7d3f8a6e4c2b1d09",  # git SHA
        "e240e4b801f7bb68c20d1356b60968ad0c33a41d00d828e74ceb3364a0317be9",  # sha256
        "9e107d9d372bb6826bd81d3542a419d6",  # md5
        "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f",  # UUID
        "sha256:9b2f0c1e8d7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
        "YTk0YThmZTVjY2IxOWJhNjFjNGMwODczZDM5MWU5ODc5ODJmYmJkMw==",  # base64 of hex
        "dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0dGVzdHRlc3Q=",  # base64 of "testtest…"
        "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1",
        "AbstractSingletonProxyFactoryBean2024",
        "/Users/JaneDoe/Projects/botMemory2/src/core/redactTests",
        "src/main/java/com/example/orders/OrderFulfillmentEventPublisher2024.java",
        "https://docs.google.com/document/d/1aBcD3fGhIjKlMnOpQrStUvWxYz0123456789abcdEF/edit",
        "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz",
        "lentokonesuihkuturbiinimoottoriapumekaanikkoaliupseerioppilas",
        "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2",
        "sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC",
        "#ThrowbackThursday2024 #100DaysOfCode #NorthernLights2026",
    ],
)
def test_high_entropy_lookalikes_are_left_alone(word):
    text = f"note: {word} (keep)"
    assert find_secrets(text) == [], describe(text, find_secrets(text))


# --------------------------------------------------------------------------
# Characters, not bytes
# --------------------------------------------------------------------------


def test_marker_counts_characters_not_bytes():
    secret = "Ääkkönen-€€€-日本-🔑x"
    assert len(secret.encode()) > len(secret)
    text = f"🙂 Mökki — Wi-Fi\nwifi password: {secret}\nkiitos 🙏"
    assert (
        redact(text)
        == f"🙂 Mökki — Wi-Fi\nwifi password: {marker(len(secret))}\nkiitos 🙏"
    )
    (s,) = find_secrets(text)
    assert text[s.start : s.end] == secret


def test_offsets_survive_case_mapping_that_changes_length():
    # 'İ'.lower() is two characters; offsets must still point into the original.
    tok = "gh" + "p_" + FAKE.rnd("offsets", 36)
    text = f"İİİ İstanbul notes: {tok} İ"
    (s,) = find_secrets(text)
    assert text[s.start : s.end] == tok
    bearer = "Bearer Zq81Lm0Xp2Yv7Wt"
    text = f"İİİ header {bearer} İ"
    (s,) = find_secrets(text)
    assert text[s.start : s.end] == bearer.split()[1]


# --------------------------------------------------------------------------
# Idempotence
# --------------------------------------------------------------------------


def test_redaction_is_idempotent_on_the_corpus():
    text, _, _ = render_notes()
    once = redact(text)
    assert redact(once) == once
    assert find_secrets(once) == []
    for case in CASES:
        t = case.context.format(case.secret)
        assert redact(redact(t)) == redact(t)


@pytest.mark.parametrize(
    "text",
    [
        # Secrets glued to each other or to text that only looks like a
        # secret once its neighbour is gone.
        "gh"
        + "p_"
        + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
        + "-"
        + "Xk9mP2qL7vRt3NwZ8yB4cD6fH1jK5sA0Zz",
        "password=" + "«redacted 3 chars»" + "Xk9mP2qL7vRt3NwZ8yB4cD6fH1jK5sA0",
        "token: «redacted 8 chars»abc",
        "AK" + "IAQ3VZ7TLMXN2P8RWDAK" + "IAQ3VZ7TLMXN2P8RWD",
        "sk-" + "abc123DEF456ghi789JKL0" + "=" + "Vq8Lz3Nw7Kp2Xr9Mt4Bc6Hy1Js5Df0Ga",
    ],
)
def test_idempotent_on_tricky_neighbours(text):
    once = redact(text)
    assert redact(once) == once
    assert find_secrets(once) == []


FRAGMENTS = [
    "password",
    "Password",
    "token",
    "api_key",
    "secret",
    ":",
    "=",
    " ",
    "\n",
    '"',
    "'",
    "`",
    "«redacted 3 chars»",
    "«",
    "»",
    "AK" + "IA",
    "gh" + "p_",
    "sk-",
    "sk-" + "ant-",
    "xo" + "xb-",
    "eyJ",
    ".",
    "://",
    "@",
    "Bearer ",
    "Authorization: Basic ",
    "${",
    "}",
    "<",
    ">",
    "- ",
    "· ",
    "#",
    "/",
    "+",
    "-",
    "_",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "-----BEGIN CERTIFICATE-----",
    "MIIEowIBAAKCAQEA",
    "Xk9mP2qL7vRt3NwZ",
    "8yB4cD6fH1jK5sA0",
    "QUFBQUFB",
    "0123456789abcdef",
    "https://",
    "user:",
    "curl -u ",
    "--password ",
    "machine h password ",
    "x",
    "X",
    "1",
    "ä",
    "İ",
    "🔑",
    # the issue-17 rules
    "Password - ",
    "and password: ",
    "cloudflare_key=",
    "heroku: ",
    "twitch ",
    "8Q~",
    "|",
    "123456789012345",
    "0e3b9c1a-7f2d-4e8b-9a6c-5d4e3f2a1b0c",
    "g" + "sk_",
    "Ab3dEf6hIj9kLm2n",
]


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=4), max_size=60).map("".join)
)
def test_property_idempotent_on_secretish_text(text):
    secrets = find_secrets(text)
    starts = [s.start for s in secrets]
    assert starts == sorted(starts)
    for a, b in pairwise(secrets):
        assert a.end <= b.start
    for s in secrets:
        assert 0 <= s.start < s.end <= len(text)
    once, n = redact_count(text)
    assert n == len(secrets)
    assert contains_secret(text) == bool(secrets)
    assert redact(once) == once
    assert not contains_secret(once)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=400))
def test_property_never_raises_and_is_idempotent(text):
    once = redact(text)
    assert redact(once) == once


# --------------------------------------------------------------------------
# Speed
# --------------------------------------------------------------------------


def _one_megabyte_of(paths: list[Path]) -> str:
    corpus = "\n\n".join(p.read_text(encoding="utf-8") for p in paths)
    return (corpus * (1_000_000 // len(corpus) + 1))[:1_000_000]


def _one_megabyte_of_prose() -> str:
    """Ordinary notes: the hand-written part of the corpus."""
    return _one_megabyte_of(
        [p for p in prose_files() if not p.name.startswith("generated-")]
    )


# Speed is measured in benchmarks/bench_redact.py, never asserted here.


def test_one_megabyte_of_prose_is_left_alone():
    text = _one_megabyte_of_prose()
    assert len(text) == 1_000_000
    assert redact(text) == text


def test_one_megabyte_of_dense_technical_notes_is_left_alone():
    # The generated notes are wall-to-wall hashes, digests, URLs and keys.
    text = _one_megabyte_of(prose_files())
    assert redact(text) == text


def test_one_megabyte_with_secrets():
    notes, _, spans = render_notes()
    prose = _one_megabyte_of_prose()
    chunk = 50_000
    parts = [
        prose[i : i + chunk] + "\n\n" + notes + "\n\n"
        for i in range(0, 1_000_000 - chunk * 7, chunk)
    ]
    text = "".join(parts)
    redacted, n = redact_count(text)
    assert n == len(spans) * len(parts)
    assert find_secrets(redacted) == []


@pytest.mark.parametrize(
    "text",
    [
        "a" * 1_000_000,
        "=" * 1_000_000,
        "Ab1+" * 250_000,
        ("Xk9mP2qL7vRt3NwZ8yB4cD6fH1jK5sA0" * 31_250),
        "password: " * 100_000,
        "password=" * 110_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" * 30_000,
        "eyJ" * 330_000,
        "eyJabcdefghij." * 70_000,
        "://" * 330_000,
        "https://u:" + "p" * 999_000 + " x",
        "curl " * 200_000,
        "Bearer " * 140_000,
        ("key=" + "x" * 50 + "&") * 18_000,
        "· " * 500_000,
        "\n" * 1_000_000,
        " " * 1_000_000,
        "«redacted 3 chars»" * 55_000,
    ],
    ids=lambda t: repr(t[:24]),
)
def test_pathological_input_is_handled(text):
    once = redact(text)
    assert redact(once) == once


def test_a_token_is_not_a_hash_label_for_the_next_one():
    # "…H1jK5sA0 " once read as the label "h1:" for the token after it, so each
    # widening round found one more token: quadratic on a list of keys.
    from botmemory.core import redact as R

    token = "Xk9mP2qL7vRt3NwZ8yB4cD6fH1jK5sA0"
    text = (token + " ") * 50
    assert len(R._scan(text)) == 50  # all found in the first pass
    assert redact(text).count("«redacted 32 chars»") == 50


# --------------------------------------------------------------------------
# Provider formats: one fake sample per format (tests/core/data/redaction/providers.py)
# --------------------------------------------------------------------------


def _load_by_path(name: str, path: Path) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


PROVIDERS = _load_by_path(
    "botmemory_test_provider_secrets", DATA / "providers.py"
).PROVIDERS
ADVERSARIAL = _load_by_path(
    "botmemory_test_redact_adversarial", DATA / "adversarial.py"
).MAKERS


def test_provider_corpus_has_200_formats():
    assert len(PROVIDERS) >= 200
    assert len({s.name for s in PROVIDERS}) == len(PROVIDERS)
    assert len({s.secret for s in PROVIDERS}) == len(PROVIDERS)


@pytest.mark.parametrize("sample", PROVIDERS, ids=[s.name for s in PROVIDERS])
def test_provider_format_is_caught(sample):
    text = sample.context.format(sample.secret)
    redacted = redact(text)
    assert_nothing_left(sample.secret, redacted)
    before, after = sample.context.split("{}")
    assert redacted.startswith(before) and redacted.endswith(after), redacted
    assert "«redacted " in redacted
    assert redact(redacted) == redacted


def test_provider_samples_in_one_note_are_all_caught():
    # Every format on its own line of one note, between ordinary sentences.
    lines = []
    for s in PROVIDERS:
        lines.append(f"- {s.name.replace('_', ' ')}: rotated last week.")
        lines.append(s.context.format(s.secret))
    text = "\n".join(lines)
    redacted = redact(text)
    for s in PROVIDERS:
        assert_nothing_left(s.secret, redacted)
        assert f"- {s.name.replace('_', ' ')}: rotated last week." in redacted


# --------------------------------------------------------------------------
# Issue 17 item 3: the cases that leaked before
# --------------------------------------------------------------------------

_PROJ = "s" + "k-proj-" + FAKE.rnd("issue-proj", 74, FAKE.B64URL) + "T3Blbk" + "FJ" + FAKE.rnd("issue-proj2", 74, FAKE.B64URL)
_GSK = "g" + "sk_" + FAKE.rnd("issue-gsk", 52)
_AWS_SECRET = FAKE.rnd("issue-aws", 40, FAKE.B64)


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        # After one match on a line the other rules still run.
        (f"key {_PROJ} and password: hunter2", [_PROJ, "hunter2"]),
        (f"password: hunter2 and key {_PROJ}", ["hunter2 and key " + _PROJ]),
        (f"token {_GSK}, db password: Gl4ss-Harbour", [_GSK, "Gl4ss-Harbour"]),
        # The .env case, with export, quotes and ':'.
        (f"GROQ_API_KEY={_GSK}", [_GSK]),
        (f'export GROQ_API_KEY="{_GSK}"', [_GSK]),
        (f"GROQ_API_KEY: '{_GSK}'", [_GSK]),
        ("ACME_API_KEY=zq81lm0xp2yv7wt4kd", ["zq81lm0xp2yv7wt4kd"]),
        ("export BILLING_TOKEN=t0k-8842-Orchard", ["t0k-8842-Orchard"]),
        ("WEBHOOK_SECRET: 'c5Gz8Wq2-Nv4Lk7'", ["c5Gz8Wq2-Nv4Lk7"]),
        ("SMTP_PASSWORD=Birch-Log-81", ["Birch-Log-81"]),
        ("PASSWORD=hunter2", ["hunter2"]),
        ("password = hunter2", ["hunter2"]),
        ("Password - hunter2", ["hunter2"]),
        ("- Password - Fjord-Light-0612", ["Fjord-Light-0612"]),
        (f"the secret {_AWS_SECRET}", [_AWS_SECRET]),
        ("curl -u admin:Kl0ckT0rn! https://dav.example.org/", ["Kl0ckT0rn!"]),
        ("Authorization: Token 9f8e7d6c5b4a39281706f5e4d3c2b1a0", ["9f8e7d6c5b4a39281706f5e4d3c2b1a0"]),
        ("Authorization: Bearer zq81Lm0Xp2Yv7Wt4Kd", ["zq81Lm0Xp2Yv7Wt4Kd"]),
        ("Authorization: Basic bWlyYTpoNHJiMHVy", ["bWlyYTpoNHJiMHVy"]),
        ("amqp://guest:Rabbit-Hole-77@mq.internal:5672/", ["Rabbit-Hole-77"]),
        ("HEROKU_API_KEY=0e3b9c1a-7f2d-4e8b-9a6c-5d4e3f2a1b0c", ["0e3b9c1a-7f2d-4e8b-9a6c-5d4e3f2a1b0c"]),
        ("cloudflare global key: 5245671dcbad68d9af377e15b09fb907f19a6", ["5245671dcbad68d9af377e15b09fb907f19a6"]),
    ],
)
def test_issue_17_cases_are_redacted(text, secrets):
    redacted = redact(text)
    expected = text
    for s in secrets:
        expected = expected.replace(s, marker(len(s)), 1)
    assert redacted == expected, describe(text, find_secrets(text))
    assert redact(redacted) == redacted


@pytest.mark.parametrize(
    "text",
    [
        # Found in real documentation while tuning: none of these is a secret.
        "pwd - print name of current/working directory",
        "password - zadaniem tej grupy jest odświeżanie mechanizmów",
        "passwd:         compat",
        "passwd: files systemd",
        "--password=hasło",
        "--proxy-passwd=Passwort",
        "group_name:password:GID:user_list",
        "pw_name:pw_passwd:pw_uid:pw_gid:pw_gecos:pw_dir:pw_shell",
        "<http://fred:fredpassword@example.com:8080/>",
        "I moved 12 apps to Heroku in 2019 and kept the Cloudflare DNS.",
        "Twitter thread: https://twitter.com/someone/status/1234567890123456789",
        "linear: 2024-10-05 12:30:45",
        "sentry: release-2024.10.5-build.1234",
        "the secret sauce recipe v2 2024-01-01",
        "Password - the one in the vault",
        "Password - see 1Password",
        "SK-2024-INVOICE",
        "test_0123456789abcdef is a fixture name",
    ],
)
def test_documentation_lookalikes_are_left_alone(text):
    found = find_secrets(text)
    assert found == [], describe(text, found)


# --------------------------------------------------------------------------
# Issue 23: a credential named in a sentence; provider names after Makefile
# operators and markdown emphasis
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # A credential noun, what it is for, a colon, the value.
        ("Here is the Twilio API key for the staging box: Qm7vX2kPz9LwR4tN — rotate it.", "Qm7vX2kPz9LwR4tN"),
        ("The access token for the build runner: 4f9c2e71-8b3a-4d6e-a1f0-7c5b9e2d3a18.",
         "4f9c2e71-8b3a-4d6e-a1f0-7c5b9e2d3a18"),
        ("the webhook secret of the bot: `d83c1e07:5a2f9b64` (ask Jo before changing it)", "d83c1e07:5a2f9b64"),
        ("Password for the NAS in the attic: Ferm4t-Lantern-29", "Ferm4t-Lantern-29"),
        ("Our client secret for the Spotify app: 9a1fe4c07b3d28e65f10c9ab7d2e4f83", "9a1fe4c07b3d28e65f10c9ab7d2e4f83"),
        ("Tokens of the deploy bot: gR8wT2nLq5Zv1Hk9", "gR8wT2nLq5Zv1Hk9"),
        ("The Mailjet API key for prod is 0b7e4c9a21f38d56e9a0c4b7d1f2e835.", "0b7e4c9a21f38d56e9a0c4b7d1f2e835"),
        ("the access token was now `Zt5qW1xR8vN3mK6pB2cL`", "Zt5qW1xR8vN3mK6pB2cL"),
        ("Stripe API key (prod): 9a1fe4c07b3d28e65f10c9ab7d2e4f83", "9a1fe4c07b3d28e65f10c9ab7d2e4f83"),
        ("The access token is: Zt5qW1xR8vN3mK6pB2cL", "Zt5qW1xR8vN3mK6pB2cL"),
        # Markdown emphasis around a provider's name and its colon.
        ("- **Plaid secret:** `c0a81f2e9b7d46a5f3e1d2c4b6a8f09e`", "c0a81f2e9b7d46a5f3e1d2c4b6a8f09e"),
        ("- **Linkedin client secret:** `Tq4Wn8Zc2Lp6Vr0K`", "Tq4Wn8Zc2Lp6Vr0K"),
        # Makefile's conditional and immediate assignments.
        ("HUBSPOT_KEY ?= 7c1e9a42-3bd0-4f85-a6e2-91d07b5c3f48", "7c1e9a42-3bd0-4f85-a6e2-91d07b5c3f48"),
        ("ZENDESK_TOKEN :::= Vb3nQ8rT1wYz6Kp2Lm9s", "Vb3nQ8rT1wYz6Kp2Lm9s"),
        ("looker_client_id ::= 7Hq2Zx9Wc4Vn1Bm6Kd3P", "7Hq2Zx9Wc4Vn1Bm6Kd3P"),
        # Providers named as their keys' owners spell them.
        ("SIDEKIQ_CREDENTIALS=3f9a0c2d:8b71e4f6", "3f9a0c2d:8b71e4f6"),
        ("linked-in: 86kq2zX7w4Ln5p", "86kq2zX7w4Ln5p"),
        ("message-bird key = Dq7Lm2Vx9Kp4Wz1Nc8Rt5Hy3", "Dq7Lm2Vx9Kp4Wz1Nc8Rt5Hy3"),
        ("private-ai: x4kq9m2v7n1b8c3z6l5w0r2t", "x4kq9m2v7n1b8c3z6l5w0r2t"),
        # curl: Dynatrace's Api-Token scheme, a key with no scheme, a key as the user name (Stripe's "-u KEY:").
        ("curl -H 'Authorization: Api-Token dt0x7Hq2Zx9Wc4Vn1Bm6' https://x.test", "dt0x7Hq2Zx9Wc4Vn1Bm6"),
        ('curl -H "Authorization: 7Hq2Zx9Wc4Vn1Bm6Lp3" https://x.test', "7Hq2Zx9Wc4Vn1Bm6Lp3"),
        ("curl https://api.example.com/v1/charges -u rk8Wq2Lm4Xp7Zt1Vn6Bc:", "rk8Wq2Lm4Xp7Zt1Vn6Bc"),
        # Signed URLs: an Azure SAS signature, an S3 presigned URL's signature.
        ("https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2026-01-01T00:00:00Z"
         "&sig=Zx9Wc4Vn1Bm6Kd3PLq8Tz2Wr5Yu7Io0Pa3Sd6Fg9Hj%3D", "Zx9Wc4Vn1Bm6Kd3PLq8Tz2Wr5Yu7Io0Pa3Sd6Fg9Hj%3D"),
        ("https://b.s3.amazonaws.com/k?X-Amz-Expires=3600&X-Amz-Signature="
         "4f9c2e718b3a4d6ea1f07c5b9e2d3a184f9c2e718b3a4d6ea1f07c5b9e2d3a18",
         "4f9c2e718b3a4d6ea1f07c5b9e2d3a184f9c2e718b3a4d6ea1f07c5b9e2d3a18"),
    ],
)
def test_issue_23_formats_are_redacted(text, secret):
    found = find_secrets(text)
    assert [text[f.start:f.end] for f in found] == [secret], describe(text, found)
    assert redact(redact(text)) == redact(text)


@pytest.mark.parametrize(
    "text",
    [
        # The noun and a colon in ordinary prose, the word after it not a generated value.
        "The API key for the staging box: see the vault, ask Ana.",
        "The primary key for the users table: user_id_2024",
        "Keyboard shortcut key for the menu: Ctrl+Shift+F12",
        "The key of the song: C minor, then E-flat major for the bridge.",
        "The secret to a good crust: cold butter and 2 tbsp of ice water.",
        "The token for each request: a fresh one, valid for 3600 seconds.",
        "The access token of the release: release-2024.10.3",
        "The password for the guest network: printed on the fridge.",
        "Tokens for the workshop: 12 per person, handed out at 9:30.",
        "the API key for v2: https://example.org/docs/keys-and-tokens",
        "the signing key for Debian 12: 4CB50190207B4758A3F73A796ED0E7B82643E131",
        "passkey for the phone: set up on 2026-03-01",
        "The secret to the crust is cold butter and 2 tbsp of ice water.",
        "The API key for the old endpoint is deprecated since v2.14.0-beta1.",
        "The access token is valid for 3600 seconds.",
        "the API key (see the vault): ask Ana",
        "API key (v2): release-2024.10.5",
        # A provider word before a Makefile operator and a plain value.
        "LINEAR_VERSION ?= release-2024.10.5",
        "SENTRY_HOST := sentry.example.org",
        "- **Sidekiq queue:** `default_2024_10`",
        "Authorization: required for every call since 2024-01-01",
        "curl -u admin: https://x.test asks for the password",
        "curl -u user_name_without_pw: https://x.test",
        "https://example.org/search?q=sig&sig=short-one",
        "the query string ends in &sig=<signature>",
    ],
)
def test_issue_23_near_misses_are_left_alone(text):
    found = find_secrets(text)
    assert found == [], describe(text, found)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # The value right after the noun, no colon and no "is".
        ("Weather api key Xk29sLq8Pz3nRt7vWm4yBc6d for the dashboard", "Xk29sLq8Pz3nRt7vWm4yBc6d"),
        ("The API key 7ed5e15ff034d16017fbce66869b7bb7 goes in the header.", "7ed5e15ff034d16017fbce66869b7bb7"),
        ("auth token 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
        ("- access token `Zt5qW1xR8vN3mK6pB2cL` (the CI one)", "Zt5qW1xR8vN3mK6pB2cL"),
        # The older Teams connector URL (the newer webhookb2/ one is a rule too).
        ("post to https://outlook.office.com/webhook/7aa49aa6-7840-443d-806c-08ebe8f59966@c662313f-14fc-43a2-9a7a-"
         "d2e27f4f3478/IncomingWebhook/8592f62b50cf41b9b93ba0c0a00a0b88/eff4cd58-1bb8-4899-94de-795f656b4a18",
         "7aa49aa6-7840-443d-806c-08ebe8f59966@c662313f-14fc-43a2-9a7a-d2e27f4f3478/IncomingWebhook/"
         "8592f62b50cf41b9b93ba0c0a00a0b88/eff4cd58-1bb8-4899-94de-795f656b4a18"),
    ],
)
def test_a_credential_right_after_its_noun_is_redacted(text, secret):
    found = find_secrets(text)
    assert [text[f.start:f.end] for f in found] == [secret], describe(text, found)
    assert redact(redact(text)) == redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "the access token expires after 3600 seconds",
        "rotate the api key monthly-2024-05-01 as planned",
        "our api key rotation policy v2-2024 is in the wiki",
        "the key 7ed5e15ff034d16017fbce66869b7bb7 is the file's MD5",
        "tokens 7ed5e15ff034d16017fbce66869b7bb7 and more",
        "the secret ingredient is love",
        "the API key release-2024.10.5 notes",
        "see https://outlook.office.com/webhook/ for the docs",
    ],
)
def test_a_noun_then_a_word_that_is_not_generated_is_left_alone(text):
    found = find_secrets(text)
    assert found == [], describe(text, found)


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        # A password on a command line.
        ("mysql -u root -pS3cretPass9 shop", ["S3cretPass9"]),
        ("mysqldump -h db -P 3306 -u me -p'Kx 82!' x > x.sql", ["Kx 82!"]),
        ("sshpass -p 'p4ssw0rd!' ssh admin@box", ["p4ssw0rd!"]),
        ("docker login -u priya -p s3cr3tP4ss registry.example.com", ["s3cr3tP4ss"]),
        # An account as "email / password".
        ("Netflix: priya@example.com / Kx82!mQz77", ["Kx82!mQz77"]),
        # A code that opens something.
        ("the door code is 4471", ["4471"]),
        ("Alarm code: 0852#, then the hall light", ["0852#"]),
        ("gate code 1379 then left", ["1379"]),
        # A wallet's seed phrase (12 words; what follows it stays).
        ("seed phrase: legal winner thank year wave sausage worth useful legal winner thank yellow",
         ["legal winner thank year wave sausage worth useful legal winner thank yellow"]),
        ("My recovery phrase is legal winner thank year wave sausage worth useful legal winner thank yellow and keep "
         "it safe", ["legal winner thank year wave sausage worth useful legal winner thank yellow"]),
        # Backup codes.
        ("recovery codes: 4f8a-92kd 7hd8-2k3j 9dk3-kd82", ["4f8a-92kd", "7hd8-2k3j", "9dk3-kd82"]),
        ("2FA backup code 8472-9931", ["8472-9931"]),
        # A session cookie.
        ("Set-Cookie: sessionid=8f7s6d5f4g3h2j1k0l9z8x7c6v5b4n3m; HttpOnly", ["8f7s6d5f4g3h2j1k0l9z8x7c6v5b4n3m"]),
        # A Wi-Fi key, a password right after its noun.
        ("WPA2 key: 8f7s6d5f4g3h", ["8f7s6d5f4g3h"]),
        ("wifi password Tr0ub4dor&3", ["Tr0ub4dor&3"]),
        # A disk's recovery key, a product key.
        ("BitLocker recovery key: 123456-234567-345678-456789-567890-678901-789012-890123",
         ["123456-234567-345678-456789-567890-678901-789012-890123"]),
        ("the recovery key for my laptop is 123456-234567-345678-456789-567890-678901-789012-890123 (work)",
         ["123456-234567-345678-456789-567890-678901-789012-890123"]),
        ("Windows product key: XJ7K2-9QRTB-M4PVW-H8DFG-3CYNK", ["XJ7K2-9QRTB-M4PVW-H8DFG-3CYNK"]),
        # A payment card (Luhn-valid) and its security code.
        ("credit card 4111 1111 1111 1111 exp 12/27 cvv 123", ["4111 1111 1111 1111", "123"]),
        ("my card number is 4242424242424242", ["4242424242424242"]),
        ("Visa 4012-8888-8888-1881, CVC: 737", ["4012-8888-8888-1881", "737"]),
        ("Amex 3782 822463 10005, security code 1234", ["3782 822463 10005", "1234"]),
        ("5555 5555 5555 4444 is the Mastercard for travel", ["5555 5555 5555 4444"]),
        # A Wi-Fi pre-shared key; a signed URL's signature.
        ('network={\n    ssid="HomeNet"\n    psk="sunflower2024"\n}', ["sunflower2024"]),
        ("WIFI_PSK=Tr0ub4dor&3", ["Tr0ub4dor&3"]),
        ("https://acme.blob.core.windows.net/c/a.pdf?sv=2021-06-08&se=2026-01-01&sig=AbCdEfGh1234567890%2BIjKlMnOp%3D",
         ["AbCdEfGh1234567890%2BIjKlMnOp%3D"]),
        ("https://b.s3.amazonaws.com/k?X-Amz-Expires=3600&X-Amz-Signature="
         "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
         ["fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"]),
        # A login kept as base64 under an auth key (Docker's config.json, npm's _auth); a .pgpass entry.
        ('{"auths":{"registry.example.com":{"auth":"cHJpeWE6S3g4MiFtUXo3Nw=="}}}', ["cHJpeWE6S3g4MiFtUXo3Nw=="]),
        ("//registry.npmjs.org/:_auth=cHJpeWE6S3g4MiFtUXo3Nw==", ["cHJpeWE6S3g4MiFtUXo3Nw=="]),
        ("db.example.com:5432:shop:app:Hunter2Hunter2", ["Hunter2Hunter2"]),
        # A login as "user / password" after its label.
        ("Router login: admin / Tr0ub4dor&3", ["Tr0ub4dor&3"]), ("credentials: admin / Kx82!mQz77", ["Kx82!mQz77"]),
        ("creds: deploy:Kx82!mQz77", ["Kx82!mQz77"]), ("account: alice | Pa55word!", ["Pa55word!"]),
        ("- `localhost:*:*:postgres:s3cr\\:et9`", ["s3cr\\:et9"]),
    ],
)
def test_everyday_credentials_are_redacted(text, secrets):
    found = find_secrets(text)
    assert [text[f.start:f.end] for f in found] == secrets, describe(text, found)
    assert redact(redact(text)) == redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "mysql -u root -p shop",                       # -p alone: mysql asks for it
        "mysql -u root -p$MYSQL_PWD shop",
        "docker login -u priya --password-stdin < token.txt",
        "mail bob@example.com / call 555-1234",
        "bob@example.com / alice@example.org",
        "ask bob@example.com / 2024 plan",
        "git clone https://oauth2@gitlab.com/mira/notes-sync.git",
        "the code is 4471 lines long",
        "source code 1234 lines",
        "access code review on 2024-05-01",
        "recovery phrase: write down the twelve words in order and store them somewhere safe offline",
        "seed phrase: tomato basil pepper",
        "backup codes are printed in the drawer",
        "recovery code review 2024-05-01",
        "Cookie: theme=dark; lang=en-US",
        "password reset-2024",
        "password policy v2",
        "password 123456 is the most common one",
        "the shared key of the pair",
        "recovery: restored from the 2024-05-01 backup, 123456-234567 rows",
        "the license key is in the drawer; order ABCDE-FGHIJ-KLMNO-PQRST-UVWXY of the shelves",
        "card 4111 1111 1111 1112 fails the check",     # not Luhn-valid
        "card 0000 0000 0000 0000",                     # one digit over and over
        "the card game has 52 cards; order 1234567890123 shipped",
        "the build number 4111111111111111 ships today with the new installer and the notes for the "
        "release; pay the invoice by card",           # the word card, but far from the number
        "cvv is checked by the bank",
        "the psk is in the router; TLS-PSK cipher suites; psk_identity=client1",
        "the sig= parameter is the signature; email sig=Best-regards-from-the-whole-team",
        '"auth": "oauth2"', "auth: aGVsbG8gd29ybGQ=",            # base64, but not user:password
        '"auth": "dXNlcm5hbWU6cGFzc3dvcmQ="',                    # username:password, a placeholder
        "author: cHJpeWE6S3g4MiFtUXo3Nw==",
        "hostname:port:database:username:password", "host:5432:db:user:password",
        "meeting 10:30:45 today", "fe80:0000:0000:0000:0202:b3ff:fe1e:8329", "lap 1:23:45:67:89",
        "account: savings / 2024-budget", "login: see docs/setup-v2.md", "credit: 4 / 5 stars",
        "login: admin / password", "blogin: a / b2c3d4e5", "login page: /admin / 404 error2",
    ],
)
def test_everyday_near_misses_are_left_alone(text):
    found = find_secrets(text)
    assert found == [], describe(text, found)


_KUBE_SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: billing-db
type: Opaque
data:
  username: YmlsbGluZw==
  DATABASE_URL: "cG9zdGdyZXM6Ly9iaWxsaW5nOkZqb3JkNzJAZGI6NTQzMi9iaWxsaW5n"
  tls.key: |
    TUlJRXZRSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NCS2N3Z2dTakFnRUFBb0lCQVFD
    N3Zia3JpaDZ3VnJ5bWhwQm1aQ29DUEpSY2dSNDBrN1Z2Z0p4cmpUb3Rvd0hUNmhWZGlT
  empty: ""
  templated: {{ .Values.db.password | b64enc }}
stringData:
  smtp: Gl4ss-Harbour-12
---
kind: ConfigMap
metadata:
  name: billing-settings
data:
  region: eu-west-1
  smtp_host: mail.example.org
"""


def test_kubernetes_secret_values_are_redacted_whatever_their_keys():
    found = [_KUBE_SECRET[f.start:f.end] for f in find_secrets(_KUBE_SECRET)]
    assert found == [
        "YmlsbGluZw==",
        "cG9zdGdyZXM6Ly9iaWxsaW5nOkZqb3JkNzJAZGI6NTQzMi9iaWxsaW5n",
        "TUlJRXZRSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NCS2N3Z2dTakFnRUFBb0lCQVFD\n"
        "    N3Zia3JpaDZ3VnJ5bWhwQm1aQ29DUEpSY2dSNDBrN1Z2Z0p4cmpUb3Rvd0hUNmhWZGlT",
        "Gl4ss-Harbour-12",
    ]
    assert redact(redact(_KUBE_SECRET)) == redact(_KUBE_SECRET)


@pytest.mark.parametrize(
    "text",
    [
        # The same data in a ConfigMap, a Secret's metadata, a Secret explained in prose.
        "kind: ConfigMap\ndata:\n  smtp: Gl4ss-Harbour-12\n",
        "kind: Secret\nmetadata:\n  name: billing-db\n  namespace: prod-2\n",
        "A Secret (kind: Secret) keeps its data: base64 values, one per key.\n",
        "kind: Secret\ndata:\n  password: <base64 of the password>\n  token: ${TOKEN_B64}\n",
    ],
)
def test_kubernetes_lookalikes_are_left_alone(text):
    found = find_secrets(text)
    assert found == [], describe(text, found)


# --------------------------------------------------------------------------
# Real prose in eight languages (prose-multilingual/README.md says whence)
# --------------------------------------------------------------------------

MULTILINGUAL = sorted((DATA / "prose-multilingual").glob("*.txt"))
INSTALLED_BOOKS = sorted(Path("/usr/share/debian-reference").glob("debian-reference.*.txt.gz"))


def test_multilingual_sample_covers_eight_languages():
    assert len(MULTILINGUAL) >= 8
    assert sum(p.stat().st_size for p in MULTILINGUAL) >= 800_000


@pytest.mark.parametrize("path", MULTILINGUAL, ids=lambda p: p.name)
def test_real_prose_has_no_secrets(path):
    text = path.read_text(encoding="utf-8")
    found = find_secrets(text)
    assert found == [], f"{path.name}: false positives:\n" + describe(text, found)


@pytest.mark.skipif(not INSTALLED_BOOKS, reason="debian-reference-* not installed")
@pytest.mark.parametrize("path", INSTALLED_BOOKS, ids=lambda p: p.name)
def test_installed_books_have_no_secrets(path):
    import gzip

    with gzip.open(path, "rt", encoding="utf-8") as f:
        text = f.read()
    found = find_secrets(text)
    assert found == [], f"{path.name}: false positives:\n" + describe(text, found)


# --------------------------------------------------------------------------
# Adversarial inputs: linear patterns finish (timing is in the benchmark)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(ADVERSARIAL), ids=list(ADVERSARIAL))
def test_adversarial_input_finishes(name):
    text = ADVERSARIAL[name](1_000_000)
    assert len(text) == 1_000_000
    once = redact(text)
    assert redact(once) == once


@pytest.mark.timeout(60)   # linear: ~2 s here; a quadratic return would take hours, and fails here instead
@pytest.mark.parametrize("name", ["'-' repeated", "one run of token characters", "cookie pairs on one line",
                                  "seed phrase labels on one line"])
def test_adversarial_input_finishes_at_ten_megabytes(name):
    # All were quadratic once: a flag pre-filter rescanned a run of dashes
    # from every position, the look-ahead after a credential word ran to
    # the end of a token run for every hit inside it, every "cookie" of a line
    # read the rest of the line again, and every "phrase" looked back to the
    # line's start.
    text = ADVERSARIAL[name](10_000_000)
    redact(text)


# ----- issue 23: passwords said in prose, and what is not one


@pytest.mark.parametrize("text", [
    "The password is in the vault.", "my PIN is the usual one", "the pin is 3 cm long", "pinned 1234",
    "the password is at least 12 characters", "the password is 128 bits", "das Passwort ist geheim",
    "The password is 1Password-managed", '"Package pin: 0.190"', "password        [success=1 default=ignore]",
    "### *The Password Is Courage* — John Castle", "password = <your password>", "Le mot de passe est requis.",
    "暗号化したパスワードは \"/etc/shadow\" ファイルの中にあり", "mój PIN jest taki sam",
    "The password for the guest network: printed on the fridge.", "the password for this account is reset daily",
    "the password for user2 is in 1Password", "the password for version 2 is stored in the vault",
    "het wachtwoord is geheim", "lösenordet är hemligt", "wifi-wachtwoord staat op de router",
    # a usage line's metavariables, in any script; a man page's word after a flag
    "-t, --match-token NAME=VALUE", "[--match-token İSİM=DEĞER]", "--match-token LABEL=YAFTA’ya",
    "--match-token seçeneğiyle belirtilen", "GPIO pin 12 is high", "pin 2.5mm jack", "pwd: /home/x",
    # how a credential is kept, not the credential
    "the password is sha256-hashed", "the password is SHA-512", "the password for v2 is bcrypt2-hashed",
    "the password is 2FA-protected", "the API key is AES256-encrypted", "password: sha256-hashed",
    "DB_PASSWORD=argon2id-hashed",
])
def test_prose_about_a_password_is_left_alone(text):
    assert find_secrets(text) == [], describe(text, find_secrets(text))


@pytest.mark.parametrize("text, secret", [
    ("my password is swordfish-42", "swordfish-42"), ('my password is "swordfish"', "swordfish"),
    ("**the passcode is 889231**", "889231"), ("Das Kennwort lautet Hagel-31", "Hagel-31"),
    ("Пароль — Tr0ub4dor", "Tr0ub4dor"), ("我的密码是 Tr0ub4dor", "Tr0ub4dor"),
    # what it is for, then "is" or a colon
    ("the master password for Bitwarden is Xk#9mP2$vL", "Xk#9mP2$vL"),
    ("Passwort für den Router ist Gx7!pq2z", "Gx7!pq2z"), ("пароль от почты — Gx7!pq2z", "Gx7!pq2z"),
    ("the pin code for the gate is 4821", "4821"), ("bank PIN 4821 for the card", "4821"),
    ("ssh root@10.0.0.5 pw: Tr0ub4dor&3", "Tr0ub4dor&3"),
    # Dutch, Swedish, Norwegian, Danish, Turkish, Korean
    ("Het wachtwoord voor de router is Tr0ub4dor&3", "Tr0ub4dor&3"), ("Lösenordet är Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("Passordet til ruteren er Tr0ub4dor&3", "Tr0ub4dor&3"), ("Adgangskoden er Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("Şifre: Tr0ub4dor&3", "Tr0ub4dor&3"), ("비밀번호는 Tr0ub4dor&3", "Tr0ub4dor&3"),
])
def test_a_password_said_in_prose_is_redacted(text, secret):
    assert secret not in redact(text) and "«redacted" in redact(text)
