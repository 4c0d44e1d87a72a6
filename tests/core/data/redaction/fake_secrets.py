"""Fake credentials for the redaction tests, built at import time.

Every value here is made up (seeded random characters behind a real-looking
prefix) and none of them works anywhere.  They are assembled by concatenation
so that the repository never holds a literal string that a secret scanner
(GitHub push protection, gitleaks, …) would flag.

This module is deliberately not named ``secrets.py``: that would shadow the
standard library's ``secrets`` module for anything that imports it.

``CASES`` lists (name, kind, secret, context): *context* is one markdown line
with ``{}`` where the secret goes, and *kind* is the ``Secret.kind`` that
``botmemory.core.redact.find_secrets`` reports for it.  ``secrets.md`` places
the same secrets by name with ``⟪name⟫`` slots.
"""

from __future__ import annotations

import base64
import random
import string
from typing import NamedTuple

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
B64URL = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"


def rnd(seed: str, n: int, alphabet: str = ALNUM) -> str:
    """*n* random characters from *alphabet*; the same every run."""
    r = random.Random(seed)
    while True:
        s = "".join(r.choice(alphabet) for _ in range(n))
        # Make mixed alphabets actually mixed (real keys always are).
        mixed = all(any(c in group for c in s) for group in (UPPER, LOWER, DIGITS))
        if alphabet in (ALNUM, B64URL, B64) and n >= 12 and not mixed:
            continue
        return s


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def pem(label: str, prefix: str, seed: str, n_bytes: int) -> str:
    """A PEM block with a random body behind a realistic DER/openssh prefix."""
    r = random.Random(seed)
    body = (
        prefix
        + base64.b64encode(bytes(r.getrandbits(8) for _ in range(n_bytes))).decode()
    )
    width = 70 if "OPENSSH" in label else 64
    lines = [body[i : i + width] for i in range(0, len(body), width)]
    dashes = "-" * 5
    return "\n".join(
        [f"{dashes}BEGIN {label}{dashes}", *lines, f"{dashes}END {label}{dashes}"]
    )


def jwt(seed: str) -> str:
    header = b64url(b'{"alg":"HS256","typ":"JWT"}')
    payload = b64url(
        b'{"sub":"4821","name":"Mira Lindqvist","role":"admin","iat":1767225600}'
    )
    sig = b64url(random.Random(seed).randbytes(32))
    return f"{header}.{payload}.{sig}"


class Case(NamedTuple):
    name: str
    kind: str
    secret: str
    context: str


_RSA = "RSA " + "PRIVATE KEY"
_OPENSSH = "OPENSSH " + "PRIVATE KEY"
_PKCS8 = "PRIVATE" + " KEY"
_EC = "EC " + "PRIVATE KEY"

CASES: list[Case] = [
    # --- AWS
    Case(
        "aws_key_id",
        "aws_access_key_id",
        "AK" + "IA" + rnd("aws1", 16, UPPER + DIGITS),
        "- backup user `restic-nas`, access key id `{}` (created 2026-03-02)",
    ),
    Case(
        "aws_sts_id",
        "aws_access_key_id",
        "AS" + "IA" + rnd("aws2", 16, UPPER + DIGITS),
        "Temporary creds from `aws sts assume-role` started with {} and expire after an hour.",
    ),
    Case(
        "aws_secret",
        "aws_secret_access_key",
        rnd("aws3", 40, B64),
        "aws_secret_access_key = {}",
    ),
    # --- GitHub
    Case(
        "gh_classic",
        "github_token",
        "gh" + "p_" + rnd("gh1", 36),
        "Old classic PAT for the deploy script: {} (delete after migrating)",
    ),
    Case(
        "gh_oauth",
        "github_token",
        "gh" + "o_" + rnd("gh2", 36),
        "`gh auth status` printed the OAuth token {} when I ran it with --show-token.",
    ),
    Case(
        "gh_user",
        "github_token",
        "gh" + "u_" + rnd("gh3", 36),
        "GitHub App user-to-server token: {}",
    ),
    Case(
        "gh_server",
        "github_token",
        "gh" + "s_" + rnd("gh4", 36),
        "The Actions log leaked {} in the checkout step, rotate it.",
    ),
    Case(
        "gh_refresh",
        "github_token",
        "gh" + "r_" + rnd("gh5", 76),
        "refresh token for the app installation {} lives 6 months",
    ),
    Case(
        "gh_fine",
        "github_pat",
        "github" + "_pat_" + rnd("gh6", 22) + "_" + rnd("gh7", 59),
        "Fine-grained PAT (read-only, repo `notes-sync`): {}",
    ),
    # --- GitLab
    Case(
        "gitlab",
        "gitlab_token",
        "gl" + "pat-" + rnd("gl1", 20, B64URL),
        'git clone with `-c http.extraHeader="PRIVATE-TOKEN {}"` works for the mirror',
    ),
    # --- Slack
    Case(
        "slack_bot",
        "slack_token",
        "xo"
        + "xb-"
        + rnd("sl1", 12, DIGITS)
        + "-"
        + rnd("sl2", 13, DIGITS)
        + "-"
        + rnd("sl3", 24),
        "Slack bot token for #deploys notifier: {}",
    ),
    Case(
        "slack_user",
        "slack_token",
        "xo"
        + "xp-"
        + rnd("sl4", 12, DIGITS)
        + "-"
        + rnd("sl5", 12, DIGITS)
        + "-"
        + rnd("sl6", 13, DIGITS)
        + "-"
        + rnd("sl7", 32, HEX),
        "user token (xoxp) used by the export script → {}",
    ),
    Case(
        "slack_app",
        "slack_token",
        "xo" + "xa-2-" + rnd("sl8", 12, DIGITS) + "-" + rnd("sl9", 24),
        "legacy workspace app token {} still appears in the old cron job",
    ),
    Case(
        "slack_refresh",
        "slack_token",
        "xo" + "xr-" + rnd("sl10", 12, DIGITS) + "-" + rnd("sl11", 40),
        "rotating refresh token: {}",
    ),
    Case(
        "slack_session",
        "slack_token",
        "xo" + "xs-" + rnd("sl12", 10, DIGITS) + "-" + rnd("sl13", 40),
        "* session token copied from the browser devtools: {}",
    ),
    Case(
        "slack_hook",
        "slack_webhook",
        "services/T"
        + rnd("sh1", 8, UPPER + DIGITS)
        + "/B"
        + rnd("sh2", 10, UPPER + DIGITS)
        + "/"
        + rnd("sh3", 24),
        "Alerts webhook: https://hooks.slack.com/{} (posts to #alerts)",
    ),
    # --- Stripe
    Case(
        "stripe_live",
        "stripe_key",
        "sk" + "_live_" + rnd("st1", 99),
        "Stripe live secret key {} — only on the payments box",
    ),
    Case(
        "stripe_test",
        "stripe_key",
        "sk" + "_test_" + rnd("st2", 99),
        "test mode key for the demo shop: {}",
    ),
    Case(
        "stripe_restricted",
        "stripe_key",
        "rk" + "_live_" + rnd("st3", 99),
        "restricted key (read charges only) `{}`",
    ),
    Case(
        "stripe_publishable",
        "stripe_key",
        "pk" + "_live_" + rnd("st4", 99),
        "publishable key {} goes in the checkout page",
    ),
    Case(
        "stripe_whsec",
        "stripe_webhook_secret",
        "wh" + "sec_" + rnd("st5", 32),
        "webhook signing secret {}",
    ),
    # --- OpenAI / Anthropic
    Case(
        "openai_legacy",
        "openai_key",
        "s" + "k-" + rnd("oa1", 20) + "T3Blbk" + "FJ" + rnd("oa2", 20),
        "The old OpenAI key {} was revoked in March.",
    ),
    Case(
        "openai_proj",
        "openai_key",
        "s"
        + "k-proj-"
        + rnd("oa3", 74, B64URL)
        + "T3Blbk"
        + "FJ"
        + rnd("oa4", 74, B64URL),
        "- OpenAI project key (team budget $50): {}",
    ),
    Case(
        "anthropic",
        "anthropic_key",
        "s" + "k-ant-api03-" + rnd("an1", 93, B64URL) + "AA",
        "Anthropic console → API keys → `{}`",
    ),
    # --- Google
    Case(
        "google_api",
        "google_api_key",
        "AI" + "za" + rnd("go1", 35, B64URL),
        "Maps embed key {} (restricted to *.lindqvist.dev)",
    ),
    Case(
        "google_oauth_secret",
        "google_oauth_secret",
        "GOC" + "SPX-" + rnd("go2", 28, B64URL),
        "OAuth client for the calendar sync, secret {}",
    ),
    # --- others
    Case(
        "huggingface",
        "huggingface_token",
        "h" + "f_" + rnd("hf1", 34),
        "HF read token {} for the gated Llama weights",
    ),
    Case(
        "npm",
        "npm_token",
        "np" + "m_" + rnd("np1", 36),
        "publish token for @mira/notes {} (automation type)",
    ),
    Case(
        "sendgrid",
        "sendgrid_key",
        "S" + "G." + rnd("sg1", 22, B64URL) + "." + rnd("sg2", 43, B64URL),
        "SendGrid key used by the contact form: {}",
    ),
    Case(
        "telegram",
        "telegram_bot_token",
        rnd("tg1", 10, DIGITS).replace("0", "7", 1) + ":AA" + rnd("tg2", 33, B64URL),
        "Telegram bot @mira_reminders_bot token {}",
    ),
    Case(
        "digitalocean",
        "digitalocean_token",
        "do" + "p_v1_" + rnd("do1", 64, HEX),
        "DO API token (droplets only): {}",
    ),
    Case(
        "age",
        "age_secret_key",
        "AGE-" + "SECRET-KEY-1" + rnd("age1", 58, UPPER + DIGITS),
        "age identity for the backups: {}",
    ),
    Case(
        "discord_hook",
        "discord_webhook",
        rnd("dc1", 18, DIGITS) + "/" + rnd("dc2", 68, B64URL),
        "Discord webhook for the guild: https://discord.com/api/webhooks/{}",
    ),
    # --- JWT
    Case(
        "jwt", "jwt", jwt("jwt1"), "Session cookie from staging (expires tomorrow): {}"
    ),
    # --- PEM private keys, whole blocks
    Case("pem_rsa", "private_key", pem(_RSA, "MIIEowIBAAKCAQEA", "pem1", 1180), "{}"),
    Case(
        "pem_openssh",
        "private_key",
        pem(
            _OPENSSH,
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACB",
            "pem2",
            300,
        ),
        "{}",
    ),
    Case(
        "pem_pkcs8",
        "private_key",
        pem(
            _PKCS8, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC", "pem3", 1150
        ),
        "{}",
    ),
    Case("pem_ec", "private_key", pem(_EC, "MHcCAQEEI", "pem4", 90), "{}"),
]

BY_NAME: dict[str, Case] = {c.name: c for c in CASES}
assert len(BY_NAME) == len(CASES)
