"""Token-shaped provider keys: the table of rules (one regex each, with where it runs and what it checks).

Part of :mod:`botmemory.core.redact` (the package's docstring says what counts as a secret)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

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
    _Rule("stripe_key", _tok("sk_", "(?:live|test|prod)_[A-Za-z0-9]{10,}+"), check=_has_digit_and_letter),
    _Rule("stripe_key", _tok("rk_", "(?:live|test|prod)_[A-Za-z0-9]{10,}+"), check=_has_digit_and_letter),
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
    _Rule("heroku_key", _tok("HRKU-", "[A-Za-z0-9_-]{20,}+"), check=_has_digit_and_letter),
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
    # page, user and app tokens: EAAB…, EAAC…, EAAG…, EAAM… (the app id's digits rule below is not theirs)
    _Rule("facebook_token", _tok("EAA", "[A-Z][A-Za-z0-9]{60,}+", _ALNUM, _ALNUM), check=_has_digit_and_letter),
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
    _Rule(   # the older connector URL: outlook.office.com/webhook/GUID@GUID/IncomingWebhook/…
        "teams_webhook",
        re.compile(r"outlook\.office(?:365)?\.com/webhook/([A-Za-z0-9@/_-]{60,400}+)"),
        group=1,
        on_scan=True,
    ),
    # Signed URLs: an Azure SAS's signature, an S3 or GCS presigned URL's signature and session token (each
    # grants what the URL names to whoever holds it, until it expires).
    _Rule(
        "azure_sas_signature",
        re.compile(r"[?&]sig=([A-Za-z0-9%+/]{40,200}+=*)(?![A-Za-z0-9%+/=])"),
        group=1,
        on_scan=True,
        needle="sig=",
    ),
    _Rule(
        "presigned_url_signature",
        re.compile(r"[?&][Xx]-(?:Amz|Goog)-Signature=([A-Fa-f0-9]{64,512}+)(?![A-Za-z0-9])"),
        group=1,
        on_scan=True,
        needle="-Signature=",
    ),
    _Rule(
        "presigned_url_signature",
        re.compile(r"[?&][Xx]-Amz-Security-Token=([A-Za-z0-9%+/_-]{40,2000}+=*)"),
        group=1,
        on_scan=True,
        needle="-Security-Token=",
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
