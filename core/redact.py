"""Find credentials in text and replace them with ``«redacted N chars»``.

Everything that reaches disk goes through :func:`redact` (spec: "Where it
lives"; DESIGN.md: "Redaction marker").  N is the secret's length in
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
  webhooks, age secret keys and JWTs.  ``ghp_xxxx…``-style placeholders are
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
* URL credentials: in ``scheme://user:password@host`` only the *password* is
  redacted; the user name stays, so the note still says which account it was.
* ``Bearer <token>``, ``Authorization: <scheme> <token>``, ``curl -u
  user:password`` and ``.netrc`` passwords: the token or password.
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
* Not caught: a password stated in a sentence ("the wifi password is
  hunter2"), a password in a markdown table cell, credential words in other
  languages ("Passwort:", "salasana:"), random strings shorter than 32
  characters with no label, and hex-only secrets with no label.
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
holds a literal each of its matches holds (``_holds``), the assignment
keywords are found with str.find, and a flag or dash keyword is tried only
next to one.  tests/core/test_redact_runs.py compares the result with every
such gate off.
"""

from __future__ import annotations

import binascii
import codecs
import functools
import importlib
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sized
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

__all__ = [
    "MARKER_FORMAT",
    "Secret",
    "contains_secret",
    "find_secrets",
    "redact",
    "redact_count",
]

MARKER_FORMAT = "«redacted {n} chars»"

_MARKER_RE = re.compile(r"«redacted \d+ chars»")


@dataclass(frozen=True)
class Secret:
    """One secret: ``text[start:end]``, character offsets."""

    start: int
    end: int
    kind: str


# A candidate span: (start, end, kind).
_Span = tuple[int, int, str]

# The regex parser, to read our own patterns: how far a match reaches, what
# it holds (no stub for mypy).
_sre_parser: Any = importlib.import_module("re._parser")


def _max_width(pattern: str, flags: int = 0) -> int:
    """The most characters a match of *pattern* spans."""
    return int(_sre_parser.parse(pattern, flags).getwidth()[1])

# ---------------------------------------------------------------------------
# Token-shaped provider keys
# ---------------------------------------------------------------------------

_TOKEN_CHARS = "A-Za-z0-9_-"
_ALNUM = "A-Za-z0-9"
_ALNUM_SET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_DIGITS = frozenset("0123456789")


@dataclass(frozen=True)
class _Rule:
    kind: str
    regex: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None
    # Run the regex over the lower-cased text (case-insensitive rules).
    on_lower: bool = False
    # Run the regex over the whole text, not the token windows (the secret
    # holds characters the windows do not: '~', '|', '@', '%').
    on_scan: bool = False
    # A literal every match holds, when the regex does not start with one:
    # the rule runs only when the text holds it.
    needle: str | None = None
    # The match starts this many characters before the regex's own match
    # (the regex starts at a literal and checks what precedes it).
    back: int = 0


def _has_digit_and_letter(value: str) -> bool:
    body = value.split("-", 1)[1] if "-" in value else value
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)


def _tok(
    lit: str, rest: str, left: str = _TOKEN_CHARS, right: str = _TOKEN_CHARS
) -> re.Pattern[str]:
    """A token that starts with the literal *lit*.

    The left boundary is a look-behind placed *after* the literal, so the
    regex engine still finds candidates with a fast literal search, and a
    start in the middle of a long run fails at once (no quadratic rescans).
    Unbounded repeats in *rest* are possessive for the same reason.
    """
    e = re.escape(lit)
    behind = f"(?<![{left}]{e})" if left else ""
    return re.compile(f"{e}{behind}{rest}(?![{right}])")


_UUID = "[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"

_PROVIDER_RULES: tuple[_Rule, ...] = (
    _Rule(
        "aws_access_key_id",
        _tok("A", "(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}", _ALNUM, _ALNUM),
    ),
    _Rule(
        "aws_secret_access_key",
        re.compile(
            r"aws(?<![a-z0-9]aws)_?secret_?(?:access_?)?key[\"']?[ \t]*(?:=>|:=|[:=])"
            r"[ \t]*[\"']?([a-z0-9/+]{40})(?![a-z0-9/+])"
        ),
        group=1,
        on_lower=True,
    ),
    _Rule("github_token", _tok("gh", "[pousr]_[A-Za-z0-9]{36,251}")),
    _Rule("github_pat", _tok("github_pat_", "[A-Za-z0-9_]{22,255}")),
    _Rule(
        "gitlab_token",
        _tok("gl", "(?:pat|dt|rt|ptt|ft|cbt|oas|imt|soat|agent)-[A-Za-z0-9_-]{20,}+"),
    ),
    _Rule("slack_token", _tok("x", "(?:ox[abposre]|app)-[A-Za-z0-9-]{10,}+", _ALNUM)),
    _Rule(
        "slack_webhook",
        re.compile(
            r"hooks\.slack\.com/((?:services|workflows|triggers)/[A-Za-z0-9_/+-]{10,}+)"
        ),
        group=1,
    ),
    _Rule(
        "discord_webhook",
        re.compile(
            r"discord(?:app)?\.com/api/webhooks/([0-9]{5,}+/[A-Za-z0-9_-]{20,}+)"
        ),
        group=1,
    ),
    _Rule("stripe_key", _tok("sk_", "(?:live|test)_[A-Za-z0-9]{16,}+")),
    _Rule("stripe_key", _tok("rk_", "(?:live|test)_[A-Za-z0-9]{16,}+")),
    _Rule("stripe_key", _tok("pk_live_", "[A-Za-z0-9]{16,}+")),
    _Rule("stripe_webhook_secret", _tok("whsec_", "[A-Za-z0-9+/=]{24,}+")),
    _Rule("anthropic_key", _tok("sk-ant-", "[A-Za-z0-9_-]{20,}+")),
    _Rule(
        "openai_key",
        _tok("sk-", "(?!ant-)[A-Za-z0-9_-]{20,}+"),
        check=_has_digit_and_letter,
    ),
    _Rule("google_api_key", _tok("AIza", "[0-9A-Za-z_-]{35}")),
    _Rule("google_oauth_secret", _tok("GOCSPX-", "[0-9A-Za-z_-]{20,}+")),
    _Rule("google_oauth_token", _tok("ya29.", "[0-9A-Za-z_-]{20,}+")),
    _Rule("huggingface_token", _tok("hf_", "[A-Za-z0-9]{30,}+")),
    _Rule("npm_token", _tok("npm_", "[A-Za-z0-9]{36}")),
    _Rule("pypi_token", _tok("pypi-AgE", "[A-Za-z0-9_-]{50,}+")),
    _Rule("sendgrid_key", _tok("SG.", "[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}")),
    # The bot id digits before ':AA' are added in _token_rules.
    _Rule("telegram_bot_token", _tok(":AA", "[A-Za-z0-9_-]{33}", left="")),
    _Rule("digitalocean_token", _tok("do", "[por]_v1_[a-f0-9]{64}")),
    _Rule("shopify_token", _tok("shp", "(?:at|ca|pa|ss)_[a-fA-F0-9]{32}")),
    _Rule("age_secret_key", _tok("AGE-SECRET-KEY-1", "[0-9A-Z]{58}")),
    # --- Formats learned from providers' documents and public scanners'
    # rule lists (gitleaks, trufflehog, GitHub secret scanning); the
    # patterns are our own.  Each starts with a literal prefix.
    _Rule("aws_access_key_id", _tok("A3T", "[A-Z0-9]{17}", _ALNUM, _ALNUM)),
    _Rule("groq_key", _tok("gsk_", "[A-Za-z0-9]{48,56}")),
    _Rule("xai_key", _tok("xai-", "[A-Za-z0-9]{60,100}")),
    _Rule("perplexity_key", _tok("pplx-", "[A-Za-z0-9]{40,56}")),
    _Rule("replicate_token", _tok("r8_", "[A-Za-z0-9]{37}")),
    _Rule("huggingface_token", _tok("api_org_", "[A-Za-z]{34}")),
    _Rule("langsmith_key", _tok("lsv2_", "(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}")),
    _Rule("pinecone_key", _tok("pcsk_", "[A-Za-z0-9_]{40,90}+")),
    _Rule("elevenlabs_key", _tok("sk_", "[a-f0-9]{48}")),
    _Rule("fireworks_key", _tok("fw_", "[A-Za-z0-9]{24}")),
    _Rule("gitlab_token", _tok("glffct-", "[A-Za-z0-9_-]{20,}+")),
    _Rule("gitlab_token", _tok("GR1348941", "[A-Za-z0-9_-]{20}")),
    _Rule(
        "gitlab_session",
        re.compile(r"_gitlab_session(?<![A-Za-z0-9]_gitlab_session)=([a-z0-9]{32})(?![A-Za-z0-9])"),
        group=1,
    ),
    _Rule("atlassian_token", _tok("ATATT3", "[A-Za-z0-9_=-]{150,300}+")),
    _Rule("atlassian_token", _tok("ATCTT3", "[A-Za-z0-9_=-]{150,300}+")),
    _Rule("bitbucket_token", _tok("ATBB", "[A-Za-z0-9]{32}")),
    _Rule("alibaba_access_key_id", _tok("LTAI", "[A-Za-z0-9]{20}")),
    _Rule("google_refresh_token", _tok("1//0", "[A-Za-z0-9_-]{40,}+", left="/" + _ALNUM)),
    _Rule("supabase_key", _tok("sbp_", "[a-f0-9]{40}")),
    _Rule("supabase_key", _tok("sb_secret_", "[A-Za-z0-9_-]{20,}+")),
    _Rule("vercel_token", _tok("vc", "[pikar]_[A-Za-z0-9]{24,60}")),
    _Rule("netlify_token", _tok("nf", "[pcaoub]_[A-Za-z0-9]{36,40}")),
    _Rule("flyio_token", _tok("fo1_", "[A-Za-z0-9_-]{43}")),
    _Rule("flyio_token", _tok("fm", "(?:1[ar]|2)_[A-Za-z0-9+/]{64,}+={0,3}")),
    _Rule("planetscale_token", _tok("pscale_", "(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}")),
    _Rule("cloudflare_origin_ca_key", _tok("v1.0-", "[a-f0-9]{24}-[a-f0-9]{146}")),
    _Rule("scalingo_token", _tok("tk-us-", "[A-Za-z0-9_-]{48}")),
    _Rule("render_key", _tok("rnd_", "[A-Za-z0-9]{32}")),
    _Rule("neon_key", _tok("napi_", "[a-z0-9]{64}")),
    _Rule("doppler_token", _tok("dp.", "(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,44}")),
    _Rule("pulumi_token", _tok("pul-", "[a-f0-9]{40}")),
    _Rule(
        "terraform_token",
        re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])"),
        needle=".atlasv1.",
    ),
    _Rule("vault_token", _tok("hv", "[sb]\\.[A-Za-z0-9_-]{90,300}")),
    _Rule(
        "vault_token",
        _tok("s.", "[A-Za-z0-9]{24}", left="." + _TOKEN_CHARS),
        check=_has_digit_and_letter,
    ),
    _Rule("tailscale_key", _tok("tskey-", "[a-z]{3,8}-[A-Za-z0-9]{8,20}-[A-Za-z0-9]{20,40}")),
    _Rule("docker_hub_token", _tok("dckr_", "(?:pat|oat)_[A-Za-z0-9_-]{27,}+")),
    _Rule("infracost_token", _tok("ico-", "[A-Za-z0-9]{32}")),
    _Rule("databricks_token", _tok("dapi", "[a-f0-9]{32}(?:-[0-9])?", _ALNUM, _ALNUM)),
    _Rule("dynatrace_token", _tok("dt0c01.", "[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}")),
    _Rule("harness_token", _tok("pat.", "[A-Za-z0-9_-]{22}\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{20}")),
    _Rule("harness_token", _tok("sat.", "[A-Za-z0-9_-]{22}\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{20}")),
    _Rule("artifactory_key", _tok("AKCp", "[A-Za-z0-9]{60,80}")),
    _Rule("artifactory_key", _tok("cmVmd", "[A-Za-z0-9]{59}")),
    _Rule("clickhouse_key", _tok("4b1d", "[A-Za-z0-9]{38}")),
    _Rule("octopus_key", _tok("API-", "[A-Z0-9]{26}")),
    _Rule("buildkite_token", _tok("bkua_", "[a-f0-9]{40}")),
    _Rule("circleci_token", _tok("CCIPAT_", "[A-Za-z0-9]{22}_[a-f0-9]{40}")),
    _Rule("sonar_token", _tok("sq", "[pau]_[a-f0-9]{40}")),
    _Rule("sourcegraph_token", _tok("sgp_", "(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}")),
    _Rule("prefect_token", _tok("pnu_", "[A-Za-z0-9]{36}")),
    _Rule("readme_token", _tok("rdme_", "[a-z0-9]{70}")),
    _Rule("rubygems_token", _tok("rubygems_", "[a-f0-9]{48}")),
    _Rule("clojars_token", _tok("clojars_", "[a-z0-9]{60}"), on_lower=True),
    _Rule("postman_token", _tok("PMAK-", "[a-fA-F0-9]{24}-[a-fA-F0-9]{34}")),
    _Rule("linear_key", _tok("lin_api_", "[A-Za-z0-9]{40}")),
    _Rule("notion_token", _tok("ntn_", "[0-9]{11}[A-Za-z0-9]{35}")),
    _Rule("notion_token", _tok("secret_", "[A-Za-z0-9]{43}"), check=_has_digit_and_letter),
    _Rule("figma_token", _tok("figd_", "[A-Za-z0-9_-]{40,}+")),
    _Rule(
        "asana_token",
        re.compile(r"/(?<=(?<![0-9/])[0-9]/)[0-9]{16}/[0-9]{16}:[a-f0-9]{32}(?![A-Za-z0-9])"),
        back=1,
    ),
    _Rule("airtable_token", _tok("pat", "[A-Za-z0-9]{14}\\.[a-f0-9]{64}")),
    _Rule("typeform_token", _tok("tfp_", "[A-Za-z0-9_.=-]{59}")),
    _Rule("intercom_token", _tok("dG9rO", "[A-Za-z0-9_=+/-]{40,}+")),
    _Rule("hubspot_token", _tok("pat-", "(?:na|eu|ap)[0-9]-" + _UUID)),
    _Rule("contentful_token", _tok("CFPAT-", "[A-Za-z0-9_-]{43}")),
    _Rule("launchdarkly_key", _tok("api-", _UUID)),
    _Rule("launchdarkly_key", _tok("sdk-", _UUID)),
    _Rule("defined_networking_token", _tok("dnkey-", "[A-Za-z0-9_=-]{26}-[A-Za-z0-9_=-]{52}")),
    _Rule(
        "maxmind_key",
        re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk(?![A-Za-z0-9_-])"),
        needle="_mmk",
    ),
    _Rule("settlemint_token", _tok("sm_", "(?:aat|pat|sat)_[A-Za-z0-9]{16}")),
    _Rule(
        "authress_key",
        _tok(
            "",
            r"(?<![A-Za-z0-9_])(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}"
            r"\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}",
            left="",
        ),
        needle=".acc",
    ),
    _Rule(
        "onepassword_secret_key",
        _tok("A3-", "[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}", _ALNUM, _ALNUM),
    ),
    _Rule("onepassword_token", _tok("ops_eyJ", "[A-Za-z0-9+/]{100,}+={0,3}")),
    _Rule("slack_token", _tok("xoxe", "(?:\\.xox[bp])?-[0-9]-[A-Za-z0-9]{140,170}")),
    _Rule(
        "discord_bot_token",
        re.compile(r"(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])"),
    ),
    _Rule("twilio_key", _tok("SK", "[0-9a-fA-F]{32}", _ALNUM, _ALNUM), check=_has_digit_and_letter),
    _Rule("sendgrid_key", _tok("SG.", "[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{30,50}")),
    _Rule("sendinblue_key", _tok("xkeysib-", "[a-f0-9]{64}-[A-Za-z0-9]{16}")),
    _Rule("sendinblue_key", _tok("xsmtpsib-", "[a-f0-9]{64}-[A-Za-z0-9]{16}")),
    _Rule("mailgun_key", _tok("key-", "[a-f0-9]{32}", _ALNUM, _ALNUM)),
    _Rule("mailgun_key", _tok("pubkey-", "[a-f0-9]{32}", _ALNUM, _ALNUM)),
    _Rule(
        "mailchimp_key",
        re.compile(r"(?<![A-Za-z0-9])[a-f0-9]{32}-us[0-9]{1,2}(?![A-Za-z0-9])"),
        needle="-us",
    ),
    _Rule("resend_key", _tok("re_", "[A-Za-z0-9]{8}_[A-Za-z0-9]{24}")),
    _Rule("firebase_fcm_key", _tok(":APA91b", "[A-Za-z0-9_-]{100,}+", left="")),
    _Rule("square_token", _tok("EAAA", "[A-Za-z0-9_-]{22,60}", _ALNUM, _ALNUM)),
    _Rule("square_token", _tok("sq0", "(?:atp|csp)-[A-Za-z0-9_-]{22,43}")),
    _Rule(
        "paypal_braintree_token",
        _tok("access_token$production$", "[a-z0-9]{16}\\$[a-f0-9]{32}", left=""),
        on_scan=True,
    ),
    _Rule("flutterwave_key", _tok("FLW", "(?:SECK|PUBK)(?:_TEST)?-?[a-zA-Z0-9]{12,32}(?:-X)?")),
    _Rule("duffel_token", _tok("duffel_", "(?:test|live)_[A-Za-z0-9_=-]{43}")),
    _Rule("easypost_token", _tok("EZ", "[AT]K[A-Za-z0-9]{54}")),
    _Rule("shippo_token", _tok("shippo_", "(?:live|test)_[a-fA-F0-9]{40}")),
    _Rule("lob_key", _tok("live_", "(?:pub_)?[a-f0-9]{31,35}")),
    _Rule("lob_key", _tok("test_", "(?:pub_)?[a-f0-9]{31,35}")),
    _Rule("plaid_token", _tok("access-", "(?:sandbox|development|production)-" + _UUID)),
    _Rule("woocommerce_key", _tok("c", "[sk]_[a-f0-9]{40}")),
    _Rule("newrelic_key", _tok("NR", "(?:AK|II|JS|AA|RA|AL|SP)-[A-Za-z0-9-]{19,40}")),
    _Rule("sentry_token", _tok("sntryu_", "[a-f0-9]{64}")),
    _Rule("sentry_token", _tok("sntrys_", "eyJ[A-Za-z0-9+/=_]{50,}+")),
    _Rule("grafana_token", _tok("glc_", "[A-Za-z0-9+/]{32,400}={0,3}")),
    _Rule("grafana_token", _tok("glsa_", "[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}")),
    _Rule("grafana_token", _tok("eyJrIjoi", "[A-Za-z0-9]{40,400}={0,3}")),
    _Rule("adafruit_key", _tok("aio_", "[A-Za-z0-9]{28}")),
    _Rule("adobe_client_secret", _tok("p8e-", "[A-Za-z0-9]{32}")),
    _Rule("dropbox_token", _tok("sl.", "[A-Za-z0-9_=.-]{100,}+")),
    _Rule("facebook_token", _tok("EAA", "[MC][A-Za-z0-9]{60,}+", _ALNUM, _ALNUM)),
    # app id|secret: the regex starts at the literal; the app id's 15 or 16
    # digits are added in _token_rules (a leading [0-9]{15,16} would be tried
    # at every position of the text).
    _Rule(
        "facebook_token",
        re.compile(r"\|(?<=[0-9]{15}\|)[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])"),
        on_scan=True,
    ),
    _Rule(
        "facebook_token",
        re.compile(r"%7C(?<=[0-9]{15}%7C)[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])"),
    ),
    _Rule("frameio_token", _tok("fio-u-", "[A-Za-z0-9_=-]{64}")),
    _Rule("intra42_secret", _tok("s-s4t2", "(?:ud|af)-[a-f0-9]{64}")),
    _Rule("mapbox_token", _tok("pk.", "[A-Za-z0-9_-]{40,}+\\.[A-Za-z0-9_-]{20,}+", left="." + _TOKEN_CHARS)),
    _Rule("mapbox_token", _tok("sk.", "[A-Za-z0-9_-]{40,}+\\.[A-Za-z0-9_-]{20,}+", left="." + _TOKEN_CHARS)),
    _Rule("mapbox_token", _tok("tk.", "[A-Za-z0-9_-]{40,}+\\.[A-Za-z0-9_-]{20,}+", left="." + _TOKEN_CHARS)),
    _Rule("yandex_key", _tok("AQVN", "[A-Za-z0-9_-]{35,38}")),
    _Rule("yandex_token", _tok("t1.", "[A-Za-z0-9_-]{10,}+=*\\.[A-Za-z0-9_-]{86}={0,2}")),
    _Rule("yandex_key", _tok("YC", "[A-Za-z0-9_-]{38}", _ALNUM, _TOKEN_CHARS), check=_has_digit_and_letter),
    _Rule("posthog_key", _tok("phx_", "[A-Za-z0-9]{40,}+")),
    _Rule("nuget_key", _tok("oy2", "[a-z0-9]{43}")),
    _Rule("jwt", _tok("ZXlK", "[A-Za-z0-9+/_-]{60,}+={0,2}")),
    _Rule("openshift_token", _tok("sha256~", "[A-Za-z0-9_-]{43}"), on_scan=True),
    _Rule(
        "teams_webhook",
        re.compile(r"webhookb2/([A-Za-z0-9@/_-]{60,400}+)"),
        group=1,
        on_scan=True,
    ),
    _Rule(
        "azure_client_secret",
        re.compile(r"(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"),
        on_scan=True,
        needle="Q~",
    ),
    _Rule(
        "jwt",
        _tok(
            "eyJ",
            r"[A-Za-z0-9_-]{8,}+\.(?:eyJ[A-Za-z0-9_-]{4,}+\.[A-Za-z0-9_-]*+"
            r"|[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,}+)",
        ),
    ),
)

# ---------------------------------------------------------------------------
# PEM blocks
# ---------------------------------------------------------------------------

# BEGIN and END lines are found separately and paired up (a regex spanning
# from BEGIN to END would rescan the text for every BEGIN line).
_PEM_BEGIN_RE = re.compile(r"-----BEGIN ([A-Z0-9][A-Z0-9 ]{0,40}?)-----")
_PEM_END_RE = re.compile(r"-----END ([A-Z0-9][A-Z0-9 ]{0,40}?)-----")
_PEM_PRIVATE_LABEL_RE = re.compile(r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?")
_PEM_BODY_RE = re.compile(r"[A-Za-z0-9+/]{16}")
# A private key whose END line is missing (pasted truncated): the BEGIN line,
# then header lines ("Proc-Type: …") and base64 lines.
_PEM_OPEN_BODY_RE = re.compile(
    r"(?:[ \t]*\r?\n[ \t>]*(?:[A-Za-z0-9+/=]{8,}+|[A-Za-z-]+: [^\n]*+|)[ \t]*(?=\r?\n|$))*"
)

# (start, end, label, has END line)
_PemBlock = tuple[int, int, str, bool]


def _pem_blocks(text: str) -> list[_PemBlock]:
    ends: dict[str, list[tuple[int, int]]] = {}
    for m in _PEM_END_RE.finditer(text):
        ends.setdefault(m.group(1), []).append((m.start(), m.end()))
    blocks: list[_PemBlock] = []
    covered = -1
    for m in _PEM_BEGIN_RE.finditer(text):
        if m.start() < covered:
            continue
        label = m.group(1)
        found = ends.get(label, [])
        i = bisect_right(found, (m.end(), -1))
        if i < len(found):
            blocks.append((m.start(), found[i][1], label, True))
            covered = found[i][1]
        else:
            blocks.append((m.start(), m.end(), label, False))
    return blocks


# ---------------------------------------------------------------------------
# URL credentials, Bearer / Authorization, curl -u, .netrc
# ---------------------------------------------------------------------------

_URL_CRED_RE = re.compile(
    r"://[^\s:/?#@\[\]\"'<>`]*:([^\s/?#\"'<>`]+)@(?=[A-Za-z0-9\[])"
)
# These three run over the lower-cased text; values are read from the original.
_BEARER_RE = re.compile(r"bearer(?<![a-z0-9_-]bearer)[ \t]+([a-z0-9._~+/=-]{8,})")
_AUTH_HEADER_RE = re.compile(
    r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:basic|bearer|token|bot|digest|apikey|key|ssws|sso-key|negotiate)[ \t]+"
    r"([^\s\"'\\,]+)"
)
# "-u user:password" (checked to be on a line that runs curl).
_CURL_USER_RE = re.compile(
    r"-(?<=[ \t]-)(?:u|-user)(?:[ \t]+|=)[\"']?[^\s:\"']*+:([^\s\"']+)"
)
_NETRC_RE = re.compile(r"(?m)^[ \t]*machine[ \t]+\S+[^\n]*?\bpassword[ \t]+(\S+)")

# ---------------------------------------------------------------------------
# Assignments
# ---------------------------------------------------------------------------

# Cheap pre-filters (over the lower-cased text): the lines worth looking at
# for assignments.
_KEYWORDS = ("pass", "pw", "secret", "token", "key")
_AFTER_KEYWORD_RE = re.compile(r"[a-z0-9_.\-]{0,64}+[\"'`*_ \t]{0,8}+[=:]")
# Bounded: "--" then an unbounded [a-z0-9-]* rescanned a run of dashes from
# every position (quadratic on "-----…").
_FLAG_HEAD = r"--(?<![a-z0-9-]--)(?:[a-z0-9][a-z0-9-]{0,40}?)?"
_FLAG_KEYWORD_RE = re.compile(_FLAG_HEAD + "(?:pass|pwd|pw|secret|token|key)")
_NETRC_KEYWORD_RE = re.compile(r"machine[ \t]")
# "--" starts a flag match at most this far before its keyword.
_FLAG_REACH = _max_width(_FLAG_HEAD)
_DASH_KEYWORD_RE = re.compile(r"(?:password|passwd|passphrase|pwd)[ \t]+-[ \t]")

# A key names a credential when its last word is one of these ...
_KEY_TAIL_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "pass",
        "pwd",
        "pw",
        "secret",
        "token",
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
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
# ... or its last word ends with one of these (PGPASSWORD, authtoken).
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
_PASSWORDISH = frozenset({"password", "passwd", "passphrase", "pass", "pwd", "pw"})
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


_NON_ALNUM_RE = re.compile(r"[^A-Za-z0-9]+")
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
    (?P<sp1>[ \t]*)(?P<sep>:=|=>|[:=])(?![=:/])(?P=close)?[*_]{0,2}(?P<sp2>[ \t]*)
    (?P<value>[^\n]*)
    """,
    re.VERBOSE | re.MULTILINE,
)

# "key=value" anywhere (shell, URL query strings, code, docker -e).
_INLINE_EQ_RE = re.compile(
    r"""
    (?<![A-Za-z0-9_.$])
    (?P<key>[A-Za-z_$][A-Za-z0-9_.\-]{0,60})
    [ \t]*(?::=|=>|=)(?![=>~])[ \t]*
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
      | [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+         # DATABASE_PASSWORD: a name
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
    return bool(_CODE_REF_RE.search(v) or _PATH_RE.fullmatch(v))


_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
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
    if len(value) < 3 or _is_placeholder(value):
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
        if _IDENT_RE.fullmatch(ident):
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


def _holds(text: str, literal: str) -> bool:
    """Whether *text* holds *literal*: the pre-filter before a regex that only
    matches where the literal is (a literal search is far cheaper than a
    regex pass).  One function, so that tests can turn every such gate off."""
    return literal in text


def _literal_hits(low: str, word: str) -> Iterator[int]:
    """Where *word* starts in *low*: the matches ``re.finditer`` gives for it."""
    p = low.find(word)
    while p >= 0:
        yield p
        p = low.find(word, p + len(word))


# Trying a regex at a place from Python costs about what a regex pass over
# this many characters does.
_TRY_COST = 512


def _sparse(places: Sized, text: str) -> bool:
    """Whether working on each of *places* from Python (trying a regex, cutting
    a run) is cheaper than a pass over the whole *text*."""
    return len(places) * _TRY_COST < len(text)


def _matches_at(low: str, starts: Iterable[int], rx: re.Pattern[str]) -> Iterator[int]:
    """Where ``rx.finditer(low)`` finds a match, when every match starts at
    one of *starts*: only those places are tried."""
    end = 0
    for p in sorted(starts):
        if p >= end:
            m = rx.match(low, p)
            if m is not None:
                yield p
                end = max(m.end(), p + 1)


def _assignments(text: str, low: str) -> Iterator[_Span]:
    line_starts: set[int] = set()

    def hits() -> Iterator[Iterator[int]]:
        # Literals are found with str.find, far faster than a regex pass; a
        # regex is tried only where its literal is.
        at = {word: list(_literal_hits(low, word)) for word in _KEYWORDS}
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
        if _holds(low, "machine"):
            yield (m.start() for m in _NETRC_KEYWORD_RE.finditer(low))
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
    for q in "\"'`":
        if (q in open_) != (q in close):
            return False
    return True


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


# ---------------------------------------------------------------------------
# High-entropy fallback
# ---------------------------------------------------------------------------

_RUN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_=-"
_RUN_TABLE = bytes(ord("a") if i in _RUN_CHARS else ord(" ") for i in range(256))
_PADDED_PART_RE = re.compile(r"[^=]+=*")
_PATH_PART_RE = re.compile(r"[^/]+")
_BASE64_RE = re.compile(r"[A-Za-z0-9+/]+")
_SEGMENT_SPLIT_RE = re.compile(r"[_\-/]")
_UPPER_RE = re.compile(r"[A-Z]")
_LOWER_RE = re.compile(r"[a-z]")
_DIGIT_RE = re.compile(r"[0-9]")
_HEX_RE = re.compile(r"[0-9a-fA-F_-]+")
_WORD_RE = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}(?![a-z])")
_HASH_LABEL_RE = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:sha-?(?:1|224|256|384|512)|md5|h1|blake2b?|integrity|digest|checksum|"
    r"hash|etag|fingerprint|nonce|pubkey|pin-sha256|base64,)[A-Za-z0-9_]*"
    r"[\"'`]?[ \t]*[:=]?[ \t]*[\"'`]?$"
)
_SRI_PREFIX_RE = re.compile(r"(?:sha(?:1|224|256|384|512)|md5)-", re.IGNORECASE)
# Identifier segments: WORD, word, Word, or hex (NODE_SEA_FUSE_fce680ab…).
_PLAIN_SEGMENT_RE = re.compile(
    r"(?:[A-Z]+|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*)[0-9]{0,4}|[0-9a-f]+|[0-9A-F]+|"
    r"[0-9]+(?:[a-z]{1,4}|[A-Z][a-z]{0,3})(?:[0-9]+[a-z]?)?|"  # 16x9, 1280x720p, 30Hz, 5Mbps
)
_SAFE_ZONE_RES = (
    # URLs (credentials in them are found by the URL rule).
    re.compile(r"://[^\s<>\"'`)\]]*"),
    re.compile(r"www\.(?<![A-Za-z0-9]www\.)[^\s<>\"'`)\]]+"),
    # data: URIs
    re.compile(r"data:[A-Za-z0-9.+/-]*(?:;[A-Za-z0-9=.-]+)*;base64,[A-Za-z0-9+/=]+"),
)

# SSH public keys: "ssh-ed25519 AAAAC3Nz…" (the key type is checked apart).
_SSH_PUB_RE = re.compile(r"AAAA(?<=[ \t]AAAA)[A-Za-z0-9+/]++=*")
_SSH_KEY_TYPE_RE = re.compile(
    r"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-[a-z0-9-]+@openssh\.com)[ \t]+$"
)

_ENTROPY_MIN_LEN = 32
_ENTROPY_MIN_BITS = 3.6
_SWITCH_MIN = 0.3
_WORD_FRAC_MAX = 0.75


def _shannon(s: str) -> float:
    n = len(s)
    return -sum(v / n * math.log2(v / n) for v in Counter(s).values())


_CLASS_RUN_RE = re.compile(r"[A-Z]+|[a-z]+|[0-9]+|[^A-Za-z0-9]+")


def _switch_rate(s: str) -> float:
    """How often neighbouring characters change class (upper/lower/digit)."""
    switches = len(_CLASS_RUN_RE.findall(s)) - 1
    return switches / max(1, len(s) - 1)


def _is_base64_of_hex(s: str) -> bool:
    body = s.rstrip("=")
    if len(body) < 16 or not _BASE64_RE.fullmatch(body):
        return False
    try:
        raw = binascii.a2b_base64(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return False
    return len(raw) >= 8 and all(ch in b"0123456789abcdefABCDEF" for ch in raw)


def _is_periodic(s: str) -> bool:
    """'dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0' repeats itself: no real entropy."""
    if len(s) > 12:
        s = s[:-4]  # base64 of repeated text differs in its last quantum
    n = len(s)
    return any(s[p:] == s[: n - p] for p in range(1, min(n // 2, 64) + 1))


def _is_sequential(s: str) -> bool:
    """'AbCdEfGhIjKlMnOp0123456789': mostly neighbouring characters."""
    codes = s.lower().encode("ascii", "replace")
    close = sum(1 for a, b in pairwise(codes) if -1 <= a - b <= 1)
    return close >= (len(s) - 1) * 0.5


def _could_be_random(body: str) -> bool:
    """The cheap half of _looks_random: shape only."""
    if len(body) < _ENTROPY_MIN_LEN:
        return False
    if _HEX_RE.fullmatch(body):
        return False  # git SHAs, sha256/md5 checksums, UUIDs
    if body.startswith(("_Z", "ZN")):
        return False  # C++ mangled name
    if "EXAMPLE" in body or "example" in body:
        return False  # documentation: 8c5b2c63-b9bc-45a3-a87a-5513eEXAMPLE
    return bool(
        _UPPER_RE.search(body) and _LOWER_RE.search(body) and _DIGIT_RE.search(body)
    )


def _looks_random(tok: str) -> bool:
    body = tok.rstrip("=")
    if not _could_be_random(body):
        return False
    if all(_PLAIN_SEGMENT_RE.fullmatch(seg) for seg in _SEGMENT_SPLIT_RE.split(body)):
        return False
    if _shannon(body) < _ENTROPY_MIN_BITS:
        return False
    letters = body.replace("/", "").replace("_", "").replace("-", "").replace("+", "")
    if _switch_rate(letters) < _SWITCH_MIN:
        return False  # CamelCaseIdentifiersAndPaths
    if sum(len(w) for w in _WORD_RE.findall(body)) / len(body) > _WORD_FRAC_MAX:
        return False
    return not (_is_base64_of_hex(body) or _is_periodic(body) or _is_sequential(body))


def _safe_zones(text: str, blocks: list[_PemBlock]) -> list[tuple[int, int]]:
    zones: list[tuple[int, int]] = [
        (s, e) for s, e, label, closed in blocks if closed and "PRIVATE" not in label
    ]
    for rx in _SAFE_ZONE_RES:
        zones.extend((m.start(), m.end()) for m in rx.finditer(text))
    for m in _SSH_PUB_RE.finditer(text):
        if _SSH_KEY_TYPE_RE.search(text, max(0, m.start() - 48), m.start()):
            zones.append((m.start(), m.end()))
    zones.sort()
    return zones


def _candidate_pieces(
    text: str, rs: int, re_: int, taken: list[_Span], ti: int
) -> Iterator[tuple[int, int]]:
    """The parts of the run text[rs:re_] to judge on their own.

    Secrets already found are cut out (their neighbours must be judged as
    they will look once the secret is a marker), the run is split at '='
    that is not trailing padding ("sig=abc…" is a name and a value), and an
    absolute path is split into its names.
    """
    pieces = [(rs, re_)]
    for s, e, _ in taken[ti:]:
        if s >= re_:
            break
        nxt: list[tuple[int, int]] = []
        for a, b in pieces:
            if e <= a or s >= b:
                nxt.append((a, b))
                continue
            if a < s:
                nxt.append((a, s))
            if e < b:
                nxt.append((e, b))
        pieces = nxt
    for a, b in pieces:
        for sm in _PADDED_PART_RE.finditer(text, a, b):
            pa, pb = sm.start(), sm.end()
            while pa < pb and text[pa] in "-_/":
                pa += 1
            while pb > pa and text[pb - 1] in "-_/":
                pb -= 1
            if pb - pa < _ENTROPY_MIN_LEN or _SRI_PREFIX_RE.match(text, pa):
                continue  # short, or a sha512-… subresource integrity hash
            if text[a] == "/" and "/" in text[pa:pb]:
                for seg in _PATH_PART_RE.finditer(text, pa, pb):
                    if seg.end() - seg.start() >= _ENTROPY_MIN_LEN:
                        yield seg.start(), seg.end()
            else:
                yield pa, pb


def _runs_within(
    scan: str, a: int, b: int, stops: str, table: bytes, min_len: int
) -> Iterator[tuple[int, int]]:
    """The maximal runs of *table*'s characters, *min_len* or longer, inside
    the run scan[a:b] of a wider set: that set less the characters *stops*."""
    if b - a < min_len:
        return
    if all(scan.find(c, a, b) < 0 for c in stops):  # one memchr each
        yield a, b
        return
    for s, e in _runs(scan[a:b], table, min_len):
        yield a + s, a + e


def _runs(scan: str, table: bytes, min_len: int) -> Iterator[tuple[int, int]]:
    """Maximal runs of the characters *table* maps to 'a', min_len or longer.

    Found with bytes.translate and bytes.find, which run at memory speed;
    a regex visiting every position of a megabyte costs far more.
    """
    mapped = scan.encode("latin-1").translate(table)
    needle = b"a" * min_len
    n = len(mapped)
    end = 0
    pos = mapped.find(needle)
    while pos >= 0:
        start = mapped.rfind(b" ", end, pos) + 1 or end
        end = mapped.find(b" ", pos)
        if end < 0:
            end = n
        yield start, end
        pos = mapped.find(needle, end)


def _entropy_runs(
    scan: str, windows: list[tuple[int, int]] | None
) -> Iterator[tuple[int, int]]:
    """The maximal runs of _RUN_CHARS, _ENTROPY_MIN_LEN or longer.

    Each lies inside one of the *windows* (the maximal runs of the token
    rules' characters, a superset), so only those are looked into; without
    them, the whole text.
    """
    if windows is None or not _sparse(windows, scan):
        yield from _runs(scan, _RUN_TABLE, _ENTROPY_MIN_LEN)  # one pass
        return
    for a, b in windows:
        yield from _runs_within(scan, a, b, ".:", _RUN_TABLE, _ENTROPY_MIN_LEN)


def _high_entropy(
    text: str,
    scan: str,
    taken: list[_Span],
    blocks: list[_PemBlock],
    windows: list[tuple[int, int]] | None = None,
) -> Iterator[_Span]:
    zones: list[tuple[int, int]] | None = None
    cut_starts = [s for s, _, _ in taken]
    for rs, re_ in _entropy_runs(scan, windows):
        # Every candidate mixes upper case, lower case and digits; most runs
        # (hex digests, paths, long words) fail that at C speed.
        if not (
            _DIGIT_RE.search(scan, rs, re_)
            and _UPPER_RE.search(scan, rs, re_)
            and _LOWER_RE.search(scan, rs, re_)
        ):
            continue
        # A run glued to other text is part of a path, a domain or a file
        # name ("a.b", "x@y", "C:\\…", "~/x"), not a stand-alone token.
        if rs > 0 and text[rs - 1] in ".\\@~":
            continue
        if re_ + 1 < len(text) and text[re_] in ".\\@" and text[re_ + 1].isalnum():
            continue
        if zones is None:
            zones = _safe_zones(scan, blocks)
        zi = bisect_right(zones, (rs, len(text) + 1)) - 1
        if zi >= 0 and zones[zi][0] <= rs < zones[zi][1]:
            continue  # inside a URL, a certificate, a public key
        if _HASH_LABEL_RE.search(scan, max(0, rs - 24), rs):
            continue  # sha256: …, h1:…, integrity="…"
        ti = max(0, bisect_right(cut_starts, rs) - 1) if taken else 0
        for pa, pb in _candidate_pieces(text, rs, re_, taken, ti):
            if _looks_random(text[pa:pb]):
                yield (pa, pb, "high_entropy")


# ---------------------------------------------------------------------------
# Provider names next to a random-looking value
# ---------------------------------------------------------------------------

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
    "kucoin", "launchdarkly", "linear", "linkedin", "mailchimp", "mailgun", "mapbox",
    "mattermost", "meraki", "messagebird", "message_bird", "mistral", "mixpanel",
    "netlify", "newrelic", "new_relic", "new-relic", "nytimes", "okta", "pagerduty",
    "plaid", "postmark", "privateai", "private_ai", "pusher", "rapidapi", "segment",
    "sendbird", "sentry", "snyk", "sonar", "sourcegraph", "squarespace", "sumo",
    "telegram", "together", "travis", "twilio", "twitch", "twitter", "typeform",
    "vercel", "yandex", "zendesk", "secret",
)
# What _PROVIDER_TAIL_RE reads between the provider word and the value.
_PROVIDER_TAIL_HEAD = r"""
    [A-Za-z0-9_.-]{0,30}+                         # _API_KEY, .client-secret
    (?:[ \t]{1,2}[A-Za-z][A-Za-z_-]{0,15}+){0,3}+ # " global key", " api token"
    [ \t'"`\]]{0,3}+(?:=>|:=|[=:,>]|\|\|)?+[ \t'"`=]{0,5}+
"""
_PROVIDER_VALUE_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_=.+/~:|%-"
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
_PLAIN_PART_RE = re.compile(r"[A-Za-z][a-z]*|[A-Z]+|[a-z]+|[0-9]{1,4}")
_VALUE_SPLIT_RE = re.compile(r"[_\-./:]+")


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
    if all(_PLAIN_PART_RE.fullmatch(p) for p in _VALUE_SPLIT_RE.split(v) if p):
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


# ---------------------------------------------------------------------------
# Putting it together
# ---------------------------------------------------------------------------


# Provider keys and webhook URLs only hold these characters, and are at least
# this long: the rules run over those stretches only, joined by newlines.
_WINDOW_TABLE = bytes(
    ord("a") if i in _RUN_CHARS + b".:" else ord(" ") for i in range(256)
)
_WINDOW_MIN_LEN = 15


_REGEX_META = frozenset("\\.^$*+?{}[]()|")


def _needle(pattern: str) -> str:
    """The literal text every match of *pattern* starts with ('' if none)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            out.append(pattern[i + 1])
            i += 2
            continue
        if c in _REGEX_META:
            break
        out.append(c)
        i += 1
    # A quantifier right after the literal applies to its last character.
    if i < len(pattern) and pattern[i] in "*?{" and out:
        out.pop()
    return "".join(out)


_NEEDLES = {
    r.regex.pattern: _needle(r.regex.pattern) if r.needle is None else r.needle
    for r in _PROVIDER_RULES
}

# ---------------------------------------------------------------------------
# Gate runs: one pass over the text that shows where a token can be at all
# ---------------------------------------------------------------------------

# The characters of every provider key, webhook URL and keyed value: the
# windows' characters, the provider value's ('~', '|', '%') and '@', '$'
# (Teams webhooks, Braintree tokens).  The maximal runs of these, 12 or
# longer, are found with one bytes.translate and bytes.find pass; in
# ordinary prose they are few and short, and each detector below that finds
# tokens looks only there, or runs only when a run is long enough.
_GATE_CHARS = bytes(sorted(set(_RUN_CHARS + b".:" + _PROVIDER_VALUE_CHARS + b"@$")))
_GATE_TABLE = bytes(ord("a") if i in _GATE_CHARS else ord(" ") for i in range(256))
_GATE_MIN_LEN = 12
assert set(_RUN_CHARS + b".:") <= set(_GATE_CHARS)  # windows lie in gate runs
_GATE_ONLY = bytes(set(_GATE_CHARS) - set(_RUN_CHARS + b".:")).decode("ascii")


@dataclass(frozen=True)
class _Runs:
    """A text's gate runs (maximal, _GATE_MIN_LEN or longer), the longest
    one's length, and its windows (maximal runs of the window characters,
    _WINDOW_MIN_LEN or longer: each lies inside a gate run)."""

    gate: list[tuple[int, int]]
    longest: int
    windows: list[tuple[int, int]]


def _find_runs(scan: str) -> _Runs:
    gate = list(_runs(scan, _GATE_TABLE, _GATE_MIN_LEN))
    if _sparse(gate, scan):  # the windows from inside the gate runs
        windows = [
            w
            for a, b in gate
            for w in _runs_within(scan, a, b, _GATE_ONLY, _WINDOW_TABLE, _WINDOW_MIN_LEN)
        ]
    else:  # many runs (a token dump): one pass
        windows = list(_runs(scan, _WINDOW_TABLE, _WINDOW_MIN_LEN))
    return _Runs(gate, max((b - a for a, b in gate), default=0), windows)


_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def _min_width(items: Any) -> int:
    """The fewest characters a parsed pattern (a list of items) matches."""
    total = 0
    for op, av in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL", "IN", "ANY", "CATEGORY"):
            total += 1
        elif name == "SUBPATTERN":
            total += _min_width(av[3])
        elif name == "ATOMIC_GROUP":
            total += _min_width(av)
        elif name in _REPEATS:
            total += av[0] * _min_width(av[2])
        elif name == "BRANCH":
            total += min(_min_width(b) for b in av[1])
        # ASSERT, ASSERT_NOT, AT: no width; GROUPREF: at least none.
    return total


def _only(items: Any, allowed: frozenset[int]) -> bool:
    """Whether every character a parsed pattern consumes is in *allowed*."""
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            ok = av in allowed
        elif name == "IN":
            ok = all(
                (str(o) == "LITERAL" and a in allowed)
                or (str(o) == "RANGE" and all(c in allowed for c in range(a[0], a[1] + 1)))
                for o, a in av
            )
        elif name == "SUBPATTERN":
            ok = _only(av[3], allowed)
        elif name == "ATOMIC_GROUP":
            ok = _only(av, allowed)
        elif name in _REPEATS:
            ok = _only(av[2], allowed)
        elif name == "BRANCH":
            ok = all(_only(b, allowed) for b in av[1])
        else:  # look-arounds and anchors consume nothing; the rest may
            ok = name in ("ASSERT", "ASSERT_NOT", "AT")
        if not ok:
            return False
    return True


def _guaranteed_run(items: Any, allowed: frozenset[int]) -> int:
    """A length that every match of a parsed pattern holds a stretch of
    *allowed* characters of (0 when none can be shown)."""
    best = cur = 0
    for op, av in items:
        if _only([(op, av)], allowed):
            cur += _min_width([(op, av)])
            best = max(best, cur)
            continue
        cur = 0
        name = str(op)
        if name == "SUBPATTERN":
            best = max(best, _guaranteed_run(av[3], allowed))
        elif name == "ATOMIC_GROUP":
            best = max(best, _guaranteed_run(av, allowed))
        elif name in _REPEATS and av[0] >= 1:
            best = max(best, _guaranteed_run(av[2], allowed))
        elif name == "BRANCH":
            best = max(best, min(_guaranteed_run(b, allowed) for b in av[1]))
    return best


def _gate_length(rx: re.Pattern[str]) -> int:
    """How long a gate run every match of *rx* lies in (0: not known, run it
    always).  Lower-cased text has the same gate runs as the scan copy."""
    if rx.flags & re.IGNORECASE:
        return 0  # 'k' would match the Kelvin sign, outside the gate
    n = _guaranteed_run(_sre_parser.parse(rx.pattern, rx.flags), frozenset(_GATE_CHARS))
    return n if n >= _GATE_MIN_LEN else 0


# A provider word starts at most this far before its value's gate run.
_PROVIDER_REACH = _max_width(_PROVIDER_TAIL_HEAD, re.VERBOSE) + max(map(len, _PROVIDER_WORDS))
_ASCII_LETTER_RE = re.compile(r"[A-Za-z]")

# Each rule with where it runs (0 windows, 1 the scan copy, 2 the lower-cased
# text), its literal, and the gate run it needs (only for the rules that run
# over the whole text: a window is itself a gate run).
_RULE_PLAN: tuple[tuple[_Rule, int, str, int], ...] = tuple(
    (
        rule,
        2 if rule.on_lower else 1 if rule.on_scan else 0,
        _NEEDLES[rule.regex.pattern],
        _gate_length(rule.regex) if rule.on_lower or rule.on_scan else 0,
    )
    for rule in _PROVIDER_RULES
)
_WHOLE_TEXT_PLAN = tuple(p for p in _RULE_PLAN if p[1])


def _token_rules(
    text: str, scan: str, low: str, runs: _Runs | None = None
) -> Iterator[_Span]:
    if runs is None:
        runs = _find_runs(scan)
    parts: list[str] = []
    win_starts: list[int] = []
    orig_starts: list[int] = []
    length = 0
    for a, b in runs.windows:
        parts.append(scan[a:b])
        win_starts.append(length)
        orig_starts.append(a)
        length += b - a + 1
    windows = "\n".join(parts)

    def where(rule: _Rule) -> Iterator[tuple[int, int]]:
        if rule.on_lower or rule.on_scan:
            for m in rule.regex.finditer(low if rule.on_lower else scan):
                yield m.start(rule.group), m.end(rule.group)
            return
        for m in rule.regex.finditer(windows):
            i = bisect_right(win_starts, m.start()) - 1
            shift = orig_starts[i] - win_starts[i]
            yield m.start(rule.group) + shift - rule.back, m.end(rule.group) + shift

    hays = (windows, scan, low)
    present: dict[tuple[int, str], bool] = {}
    # No window: no window rule matches (each matches at least a character).
    for rule, hay, needle, min_run in _RULE_PLAN if windows else _WHOLE_TEXT_PLAN:
        if min_run > runs.longest:
            continue  # every match lies in a gate run this long
        if needle:
            got = present.get((hay, needle))
            if got is None:
                got = present[(hay, needle)] = _holds(hays[hay], needle)
            if not got:
                continue  # a literal search is far cheaper than a regex pass
        for s, e in where(rule):
            if rule.kind == "facebook_token":
                d = s
                while d > 0 and s - d < 17 and text[d - 1] in _DIGITS:
                    d -= 1
                if s - d not in (15, 16):
                    continue
                s = d
            if rule.kind == "telegram_bot_token":
                d = s
                while d > 0 and s - d < 10 and text[d - 1] in _DIGITS:
                    d -= 1
                glued = d > 0 and text[d - 1] in _ALNUM_SET
                if s - d < 8 or (glued and not text.endswith("/bot", 0, d)):
                    continue  # (api.telegram.org/bot<token>/sendMessage is one)
                s = d
            tok = text[s:e]
            if len(set(tok[-16:])) < 4:
                continue  # ghp_xxxxxxxx…, AKIAXXXXXXXXXXXXXXXX: placeholders
            if rule.check is not None and not rule.check(tok):
                continue
            if e > s:
                yield (s, e, rule.kind)


def _pem(text: str, blocks: list[_PemBlock]) -> Iterator[_Span]:
    for start, end, label, closed in blocks:
        if not _PEM_PRIVATE_LABEL_RE.fullmatch(label):
            continue
        head_end = text.index("-----", start + 11) + 5
        if closed:
            # A key has a base64 body; code that mentions both lines does not.
            if _PEM_BODY_RE.search(text, head_end, end):
                yield (start, end, "private_key")
            continue
        m = _PEM_OPEN_BODY_RE.match(text, head_end)
        if m is None:
            continue
        stop = m.end()
        while stop > head_end and text[stop - 1] in " \t\r\n>":
            stop -= 1
        if _PEM_BODY_RE.search(text, head_end, stop):
            yield (start, stop, "private_key")


def _credentials(text: str, scan: str, low: str) -> Iterator[_Span]:
    # Each regex runs only when the text holds a literal that every match
    # holds: a literal search is far cheaper than a regex pass.
    if _holds(scan, "@") and _holds(scan, "://"):
        for m in _URL_CRED_RE.finditer(scan):
            if m.start() == 0 or not text[m.start() - 1].isalnum():
                continue  # no scheme
            if not _is_placeholder(text[m.start(1) : m.end(1)]):
                yield (m.start(1), m.end(1), "url_password")
    for m in _BEARER_RE.finditer(low) if _holds(low, "bearer") else ():
        tok = text[m.start(1) : m.end(1)].rstrip(".")
        if _is_placeholder(tok):
            continue
        has_digit = any(c.isdigit() for c in tok)
        mixed = any(c.isupper() for c in tok) and any(c.islower() for c in tok)
        if has_digit or (mixed and len(tok) >= 16):
            yield (m.start(1), m.start(1) + len(tok), "bearer_token")
    for m in _AUTH_HEADER_RE.finditer(low) if _holds(low, "authorization") else ():
        if not _is_placeholder(text[m.start(1) : m.end(1)]):
            yield (m.start(1), m.end(1), "authorization")
    if _holds(low, "curl"):
        line_end = -1
        curl_at = -1
        for m in _CURL_USER_RE.finditer(low):
            p = m.start()
            if p > line_end:
                ls = low.rfind("\n", max(0, line_end), p) + 1
                line_end = low.find("\n", p)
                if line_end < 0:
                    line_end = len(low)
                curl_at = low.find("curl", ls, line_end)
            if 0 <= curl_at < p and not _is_placeholder(text[m.start(1) : m.end(1)]):
                yield (m.start(1), m.end(1), "password")


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
    found.extend(_credentials(text, scan, low))
    found.extend(_assignments(text, low))
    found.extend(_provider_keyword(text, scan, low, runs))
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
