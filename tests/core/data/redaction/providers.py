"""One FAKE credential per provider format, built at import time (seeded).

    python tests/core/data/redaction/providers.py   # prints the corpus

Every value is seeded random characters behind the provider's real prefix,
in the real length and alphabet (formats learned from the providers' own
documents and from public scanners' rule lists: gitleaks, trufflehog,
GitHub's secret-scanning patterns).  None of them works anywhere.  Prefixes
are written split ("gh" "p_") so the repository holds no literal that a
secret scanner would flag.

``PROVIDERS`` lists ``Sample(name, secret, context)``: *context* is a line
with ``{}`` where the secret goes.  ``find_secrets`` must cover the whole
secret (the tests check that no 12-character piece of it survives).
"""

from __future__ import annotations

import base64
import random
import string
import zlib
from typing import NamedTuple

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DI = string.digits
AN = UP + LO + DI
ANL = LO + DI
ANU = UP + DI
HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B64 = AN + "+/"
URL = AN + "-_"


class Sample(NamedTuple):
    name: str
    secret: str
    context: str


_R = random.Random(20261201)


def r(n: int, alphabet: str = AN) -> str:
    """*n* seeded random characters; mixed alphabets come out mixed."""
    while True:
        s = "".join(_R.choice(alphabet) for _ in range(n))
        groups = [g for g in (UP, LO, DI) if any(c in g for c in alphabet)]
        if n < 12 or all(any(c in g for c in s) for g in groups):
            return s


def crc_b62(body: str) -> str:
    """GitHub-style checksum: CRC32 of the body in 6 base62 digits."""
    n = zlib.crc32(body.encode())
    out = ""
    for _ in range(6):
        n, d = divmod(n, 62)
        out = (DI + UP + LO)[d] + out
    return out


def gh(kind: str) -> str:
    body = "gh" + kind + "_" + r(30)
    return body + crc_b62(body)


def uuid(alphabet: str = HEX) -> str:
    return "-".join(r(n, alphabet) for n in (8, 4, 4, 4, 12))


def b64(n_bytes: int) -> str:
    return base64.b64encode(_R.randbytes(n_bytes)).decode()


def b64url(n_bytes: int) -> str:
    return base64.urlsafe_b64encode(_R.randbytes(n_bytes)).decode().rstrip("=")


def jwt_like(payload: bytes) -> str:
    h = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    p = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    return f"{h}.{p}.{b64url(32)}"


S = Sample
P: list[Sample] = []


def add(name: str, secret: str, context: str = "{}") -> None:
    P.append(S(name, secret, context))


# --- AI providers
add("openai_legacy", "s" + "k-" + r(20) + "T3Blbk" + "FJ" + r(20), "OPENAI_API_KEY={}")
add("openai_project", "s" + "k-proj-" + r(74, URL) + "T3Blbk" + "FJ" + r(74, URL), "key {} for the team")
add("openai_svcacct", "s" + "k-svcacct-" + r(58, URL) + "T3Blbk" + "FJ" + r(58, URL), "service account: {}")
add("openai_admin", "s" + "k-admin-" + r(58, URL) + "T3Blbk" + "FJ" + r(58, URL), "{}")
add("anthropic", "s" + "k-ant-api03-" + r(93, URL) + "AA", "ANTHROPIC_API_KEY=\"{}\"")
add("anthropic_admin", "s" + "k-ant-admin01-" + r(93, URL) + "AA", "admin key `{}`")
add("groq", "g" + "sk_" + r(52), "GROQ_API_KEY={}")
add("xai", "x" + "ai-" + r(80), "export XAI_API_KEY={}")
add("perplexity", "pp" + "lx-" + r(48), "pplx key: {}")
add("replicate", "r" + "8_" + r(37), "REPLICATE_API_TOKEN={}")
add("openrouter", "s" + "k-or-v1-" + r(64, HEX), "OpenRouter {}")
add("deepseek", "s" + "k-" + r(32, HEX), "DEEPSEEK_API_KEY={}")
add("huggingface", "h" + "f_" + r(34, UP + LO), "HF_TOKEN={}")
add("huggingface_org", "api" + "_org_" + r(34, UP + LO), "org token {}")
add("cohere", r(40), "COHERE_API_KEY={}")
add("mistral", r(32), "MISTRAL_API_KEY: {}")
add("langsmith", "ls" + "v2_pt_" + r(32, HEX) + "_" + r(10, HEX), "LANGSMITH_API_KEY={}")
add("pinecone", "pc" + "sk_" + r(5, AN) + "_" + r(63, AN + "_"), "pinecone: {}")
add("elevenlabs", "sk" + "_" + r(48, HEX), "ELEVENLABS_API_KEY={}")
add("deepgram", r(40, HEX), "DEEPGRAM_API_KEY={}")
add("assemblyai", r(32, HEX), "ASSEMBLYAI_API_KEY={}")
add("together", r(64, HEX), "TOGETHER_API_KEY={}")
add("fireworks", "fw" + "_" + r(24), "FIREWORKS_API_KEY={}")
add("privateai", r(32, ANL), "PRIVATEAI_API_KEY={}")
# --- GitHub, GitLab, Bitbucket, Atlassian
add("github_pat", gh("p"), "{}")
add("github_oauth", gh("o"), "token {} from gh auth")
add("github_user_to_server", gh("u"), "{}")
add("github_server_to_server", gh("s"), "{}")
add("github_refresh", "gh" + "r_" + r(76), "{}")
add("github_fine_grained", "github" + "_pat_" + r(22) + "_" + r(59), "GITHUB_TOKEN={}")
add("gitlab_pat", "gl" + "pat-" + r(20, URL), "{}")
add("gitlab_pat_routable", "gl" + "pat-" + r(40, URL) + "." + r(2, ANL) + r(7, ANL), "{}")
add("gitlab_deploy", "gl" + "dt-" + r(20, URL), "{}")
add("gitlab_runner", "gl" + "rt-" + r(20, URL), "{}")
add("gitlab_runner_routable", "gl" + "rt-t1_" + r(30, URL) + "." + r(9, ANL), "{}")
add("gitlab_runner_registration", "GR13" + "48941" + r(20, URL), "registration-token: {}")
add("gitlab_pipeline_trigger", "gl" + "ptt-" + r(40, HEX), "{}")
add("gitlab_feed", "gl" + "ft-" + r(20, URL), "{}")
add("gitlab_cicd_job", "gl" + "cbt-" + r(2, AN) + "_" + r(20, URL), "{}")
add("gitlab_oauth_secret", "gl" + "oas-" + r(64, URL), "{}")
add("gitlab_incoming_mail", "gl" + "imt-" + r(25, URL), "{}")
add("gitlab_agent", "gl" + "agent-" + r(50, URL), "{}")
add("gitlab_scim", "gl" + "soat-" + r(20, URL), "{}")
add("gitlab_feature_flag", "gl" + "ffct-" + r(20, URL), "{}")
add("gitlab_session", r(32, ANL), "cookie _gitlab_session={}")
add("atlassian_api", "ATA" + "TT3" + r(180, URL + "=") + r(6, AN), "{}")
add("atlassian_legacy", r(20, ANL) + r(4, HEX), "JIRA_API_TOKEN={}")
add("bitbucket_app_password", "ATB" + "B" + r(32, AN), "bitbucket app password {}")
add("bitbucket_secret", r(64, AN + "_-"), "BITBUCKET_CLIENT_SECRET={}")
# --- cloud
add("aws_access_key", "AK" + "IA" + r(16, UP + "234567"), "{}")
add("aws_sts", "AS" + "IA" + r(16, UP + "234567"), "{}")
add("aws_a3t", "A3" + "T" + r(17, UP + "234567"), "{}")
add("aws_secret_after_word", r(40, B64), "secret {}")
add("aws_secret_env", r(40, B64), "AWS_SECRET_ACCESS_KEY={}")
add("gcp_api_key", "AI" + "za" + r(35, URL), "{}")
add("google_oauth_secret", "GOC" + "SPX-" + r(28, URL), "{}")
add("google_oauth_token", "ya" + "29." + r(120, URL), "{}")
add("google_refresh", "1//0" + r(100, URL), "refresh_token: {}")
add("azure_client_secret", r(3, AN) + "8Q~" + r(34, AN + "_~.-"), "client secret {}")
add("azure_storage", b64(64), "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={};EndpointSuffix=core.windows.net")
add("alibaba_key_id", "LT" + "AI" + r(20, AN), "{}")
add("alibaba_secret", r(30, ANL), "ALIBABA_SECRET={}")
add("digitalocean_pat", "do" + "p_v1_" + r(64, HEX), "{}")
add("digitalocean_oauth", "do" + "o_v1_" + r(64, HEX), "{}")
add("digitalocean_refresh", "do" + "r_v1_" + r(64, HEX), "{}")
add("heroku_v1", uuid(), "HEROKU_API_KEY={}")
add("heroku_v2", "HR" + "KU-AA" + r(58, URL), "{}")
add("vercel_token", r(24, AN), "VERCEL_TOKEN={}")
add("vercel_new", "vc" + "p_" + r(56, AN), "{}")
add("netlify_token", r(43, URL), "NETLIFY_AUTH_TOKEN={}")
add("netlify_pat", "nf" + "p_" + r(36, AN), "{}")
add("flyio", "fo" + "1_" + r(43, URL), "{}")
add("flyio_macaroon", "fm" + "2_" + b64(96), "FLY_API_TOKEN={}")
add("supabase", "sb" + "p_" + r(40, HEX), "{}")
add("supabase_secret", "sb" + "_secret_" + r(31, URL), "{}")
add("planetscale_token", "ps" + "cale_tkn_" + r(43, URL), "{}")
add("planetscale_oauth", "ps" + "cale_oauth_" + r(43, URL), "{}")
add("planetscale_password", "ps" + "cale_pw_" + r(43, URL), "{}")
add("cloudflare_api", r(40, URL), "CLOUDFLARE_API_TOKEN={}")
add("cloudflare_global", r(37, HEX), "cloudflare global key: {}")
add("cloudflare_origin_ca", "v1" + ".0-" + r(24, HEX) + "-" + r(146, HEX), "{}")
add("scalingo", "tk" + "-us-" + r(48, URL), "{}")
add("render", "rn" + "d_" + r(32, AN), "{}")
add("neon", "na" + "pi_" + r(64, ANL), "{}")
add("doppler", "dp" + ".pt." + r(43, AN), "{}")
add("doppler_service", "dp" + ".st." + r(43, AN), "{}")
add("pulumi", "pu" + "l-" + r(40, HEX), "{}")
add("terraform", r(14, ANL) + ".at" + "lasv1." + r(67, URL), "{}")
add("vault_service", "hv" + "s." + r(95, URL), "VAULT_TOKEN={}")
add("vault_batch", "hv" + "b." + r(140, URL), "{}")
add("vault_legacy", "s." + r(24, AN), "vault token {}")
add("openshift", "sha" + "256~" + r(43, URL), "{}")
add("tailscale", "ts" + "key-auth-" + r(12, AN) + "-" + r(30, AN), "{}")
add("docker_hub", "dc" + "kr_pat_" + r(27, URL), "{}")
add("infracost", "ic" + "o-" + r(32, AN), "{}")
add("databricks", "da" + "pi" + r(32, HEX), "{}")
add("dynatrace", "dt" + "0c01." + r(24, ANU) + "." + r(64, ANU), "{}")
add("harness_pat", "pa" + "t." + r(22, URL) + "." + r(24, AN) + "." + r(20, AN), "{}")
add("artifactory_key", "AK" + "Cp" + r(69, AN), "{}")
add("artifactory_ref", "cm" + "Vmd" + r(59, AN), "{}")
add("jfrog_identity", r(64, ANL), "JFROG_TOKEN={}")
add("clickhouse", "4b" + "1d" + r(38, AN), "{}")
add("octopus", "AP" + "I-" + r(26, ANU), "{}")
add("buildkite", "bk" + "ua_" + r(40, HEX), "{}")
add("circleci", "CC" + "IPAT_" + r(22, AN) + "_" + r(40, HEX), "{}")
add("travis", r(22, ANL), "TRAVIS_TOKEN: {}")
add("droneci", r(32, ANL), "DRONECI_TOKEN={}")
add("codecov", r(32, ANL), "CODECOV_TOKEN={}")
add("sonar", r(40, ANL), "SONAR_TOKEN={}")
add("sonar_new", "sq" + "p_" + r(40, HEX), "{}")
add("snyk", uuid(), "SNYK_TOKEN={}")
add("sourcegraph", "sg" + "p_" + r(16, HEX) + "_" + r(40, HEX), "{}")
add("sourcegraph_hex", r(40, HEX), "SOURCEGRAPH_TOKEN={}")
add("prefect", "pn" + "u_" + r(36, AN), "{}")
add("readme", "rd" + "me_" + r(70, ANL), "{}")
add("rubygems", "ru" + "bygems_" + r(48, HEX), "{}")
add("npm", "np" + "m_" + r(36, AN), "{}")
add("pypi", "py" + "pi-AgEIcHlwaS5vcmc" + r(70, URL), "{}")
add("clojars", "CLO" + "JARS_" + r(60, ANL), "{}")
add("nuget", "oy" + "2" + r(43, ANL), "NUGET_API_KEY={}")
add("postman", "PM" + "AK-" + r(24, HEX) + "-" + r(34, HEX), "{}")
add("linear", "li" + "n_api_" + r(40, AN), "{}")
add("linear_secret", r(32, HEX), "LINEAR_CLIENT_SECRET={}")
add("notion", "nt" + "n_" + r(11, DI) + r(35, AN), "{}")
add("notion_legacy", "sec" + "ret_" + r(43, AN), "{}")
add("figma", "fi" + "gd_" + r(40, URL), "{}")
add("asana_pat", "2/" + r(16, DI) + "/" + r(16, DI) + ":" + r(32, HEX), "{}")
add("asana_secret", r(32, ANL), "ASANA_CLIENT_SECRET={}")
add("airtable_pat", "pa" + "t" + r(14, AN) + "." + r(64, HEX), "{}")
add("airtable_legacy", "ke" + "y" + r(14, AN), "AIRTABLE_API_KEY={}")
add("typeform", "tf" + "p_" + r(59, URL), "{}")
add("intercom", "dG9" + "rOj" + b64(45).rstrip("="), "INTERCOM_ACCESS_TOKEN={}")
add("zendesk", r(40, AN), "ZENDESK_API_TOKEN={}")
add("squarespace", uuid(), "SQUARESPACE_API_KEY={}")
add("hubspot", "pa" + "t-na1-" + uuid(), "{}")
add("hubspot_legacy", uuid(HEXU), "HUBSPOT_API_KEY={}")
add("contentful_pat", "CF" + "PAT-" + r(43, URL), "{}")
add("contentful_delivery", r(43, URL), "CONTENTFUL_DELIVERY_TOKEN={}")
add("launchdarkly", "ap" + "i-" + uuid(), "{}")
add("launchdarkly_sdk", "sd" + "k-" + uuid(), "{}")
add("mattermost", r(26, ANL), "MATTERMOST_TOKEN={}")
add("gitter", r(40, ANL), "GITTER_TOKEN={}")
add("dnkey", "dn" + "key-" + r(26, URL) + "-" + r(52, URL), "{}")
add("maxmind", r(6, AN) + "_" + r(29, AN) + "_m" + "mk", "{}")
add("settlemint", "sm" + "_pat_" + r(16, AN), "{}")
add("authress", "sc" + "_" + r(10, ANL) + "." + r(5, ANL) + ".acc_" + r(16, ANL) + "." + r(40, URL), "{}")
add("onepassword_secret_key", "A3" + "-" + r(6, ANU) + "-" + r(11, ANU) + "-" + r(5, ANU) + "-" + r(5, ANU) + "-" + r(5, ANU), "{}")
add("onepassword_service", "op" + "s_eyJ" + b64(200).rstrip("="), "OP_SERVICE_ACCOUNT_TOKEN={}")
add("age", "AGE-" + "SECRET-KEY-1" + r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"), "{}")
add("jwt", jwt_like(b'{"sub":"4821","role":"admin","iat":1767225600}'), "{}")
add("jwt_base64", base64.b64encode(jwt_like(b'{"sub":"99","iat":1767225600}').encode()).decode(), "{}")
add("private_key_ed25519", "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ" + b64(150) + "\n-----END OPENSSH " + "PRIVATE KEY-----", "{}")
# --- messaging
add("slack_bot", "xo" + "xb-" + r(12, DI) + "-" + r(13, DI) + "-" + r(24, AN), "{}")
add("slack_user", "xo" + "xp-" + r(12, DI) + "-" + r(12, DI) + "-" + r(13, DI) + "-" + r(32, HEX), "{}")
add("slack_app", "xa" + "pp-1-" + r(11, ANU) + "-" + r(13, DI) + "-" + r(64, HEX), "{}")
add("slack_config", "xo" + "xe.xoxp-1-" + r(164, ANU), "{}")
add("slack_config_refresh", "xo" + "xe-1-" + r(146, ANU), "{}")
add("slack_legacy_workspace", "xo" + "xa-2-" + r(32, AN), "{}")
add("slack_webhook", "services/T" + r(10, ANU) + "/B" + r(10, ANU) + "/" + r(24, AN), "https://hooks.slack.com/{}")
add("discord_bot", base64.b64encode(r(18, DI).encode()).decode().rstrip("=") + "." + r(6, URL) + "." + r(38, URL), "{}")
add("discord_webhook", r(19, DI) + "/" + r(68, URL), "https://discord.com/api/webhooks/{}")
add("discord_client_secret", r(32, URL), "DISCORD_CLIENT_SECRET={}")
add("telegram", r(10, "123456789") + ":AA" + r(33, URL), "{}")
add("teams_webhook", uuid() + "@" + uuid() + "/IncomingWebhook/" + r(32, HEX) + "/" + uuid(), "https://acme.webhook.office.com/webhookb2/{}")
add("twilio_key", "S" + "K" + r(32, HEX), "{}")
add("twilio_auth_token", r(32, HEX), "TWILIO_AUTH_TOKEN={}")
add("sendgrid", "S" + "G." + r(22, URL) + "." + r(43, URL), "{}")
add("sendinblue", "xke" + "ysib-" + r(64, HEX) + "-" + r(16, AN), "{}")
add("brevo_smtp", "xsm" + "tpsib-" + r(64, HEX) + "-" + r(16, AN), "{}")
add("mailgun_key", "ke" + "y-" + r(32, HEX), "MAILGUN_API_KEY={}")
add("mailgun_pubkey", "pub" + "key-" + r(32, HEX), "mailgun: {}")
add("mailgun_signing", r(32, HEX) + "-" + r(8, HEX) + "-" + r(8, HEX), "MAILGUN_WEBHOOK_SIGNING_KEY={}")
add("mailchimp", r(32, HEX) + "-us" + r(2, DI), "{}")
add("postmark", uuid(), "POSTMARK_SERVER_TOKEN={}")
add("resend", "r" + "e_" + r(8, AN) + "_" + r(24, AN), "{}")
add("messagebird", r(25, ANL), "MESSAGEBIRD_API_KEY={}")
add("sendbird", r(40, HEX), "SENDBIRD_API_TOKEN={}")
add("pusher", r(20, HEX), "PUSHER_APP_SECRET={}")
add("firebase_fcm", "AAAA" + r(7, URL) + ":APA91b" + r(134, URL), "{}")
# --- payments, commerce, finance
add("stripe_live", "s" + "k_live_" + r(99), "{}")
add("stripe_test", "s" + "k_test_" + r(99), "{}")
add("stripe_restricted", "r" + "k_live_" + r(99), "{}")
add("stripe_webhook", "wh" + "sec_" + r(32), "{}")
add("shopify_access", "sh" + "pat_" + r(32, HEX), "{}")
add("shopify_custom", "sh" + "pca_" + r(32, HEX), "{}")
add("shopify_private", "sh" + "ppa_" + r(32, HEX), "{}")
add("shopify_shared_secret", "sh" + "pss_" + r(32, HEX), "{}")
add("square_access", "EA" + "AA" + r(60, URL), "{}")
add("square_oauth", "sq" + "0atp-" + r(22, URL), "{}")
add("square_secret", "sq" + "0csp-" + r(43, URL), "{}")
add("paypal_braintree", "access" + "_token$production$" + r(16, ANL) + "$" + r(32, HEX), "{}")
add("flutterwave_secret", "FLW" + "SECK_TEST-" + r(32, "abcdefgh0123456789") + "-X", "{}")
add("flutterwave_enc", "FLW" + "SECK_TEST" + r(12, "abcdefgh0123456789"), "FLUTTERWAVE_ENCRYPTION_KEY={}")
add("flutterwave_public", "FLW" + "PUBK_TEST-" + r(32, "abcdefgh0123456789") + "-X", "{}")
add("duffel", "duf" + "fel_test_" + r(43, URL), "{}")
add("easypost", "EZ" + "AK" + r(54, AN), "{}")
add("easypost_test", "EZ" + "TK" + r(54, AN), "{}")
add("shippo", "shi" + "ppo_live_" + r(40, HEX), "{}")
add("lob", "li" + "ve_" + r(35, HEX), "LOB_API_KEY={}")
add("lob_pub", "te" + "st_pub_" + r(31, HEX), "{}")
add("gocardless", "li" + "ve_" + r(40, URL), "GOCARDLESS_ACCESS_TOKEN={}")
add("plaid_access", "ac" + "cess-production-" + uuid(), "{}")
add("plaid_secret", r(30, ANL), "PLAID_SECRET={}")
add("plaid_client", r(24, ANL), "PLAID_CLIENT_ID={}")
add("coinbase", r(64, URL), "COINBASE_API_SECRET={}")
add("kucoin_key", r(24, HEX), "KUCOIN_API_KEY={}")
add("kucoin_secret", uuid(), "KUCOIN_API_SECRET={}")
add("kraken", b64(64).rstrip("="), "KRAKEN_PRIVATE_KEY={}")
add("bittrex", r(32, ANL), "BITTREX_API_SECRET={}")
add("finicity", r(20, ANL), "FINICITY_CLIENT_SECRET={}")
add("finnhub", r(20, ANL), "FINNHUB_TOKEN={}")
add("freshbooks", r(64, ANL), "FRESHBOOKS_ACCESS_TOKEN={}")
add("woocommerce", "c" + "s_" + r(40, HEX), "{}")
# --- observability, analytics, misc SaaS
add("datadog_api", r(32, HEX), "DD_API_KEY={}")
add("datadog_app", r(40, HEX), "DATADOG_APP_KEY={}")
add("newrelic_user", "NR" + "AK-" + r(27, ANU), "{}")
add("newrelic_insert", "NR" + "II-" + r(32, URL), "{}")
add("newrelic_browser", "NR" + "JS-" + r(19, HEX), "{}")
add("sentry_user", "sn" + "tryu_" + r(64, HEX), "{}")
add("sentry_org", "sn" + "trys_eyJpYXQiO" + b64(60).rstrip("=") + "_" + r(43, B64), "{}")
add("sentry_legacy", r(64, HEX), "SENTRY_AUTH_TOKEN={}")
add("grafana_cloud", "gl" + "c_" + b64(60).rstrip("="), "{}")
add("grafana_sa", "gl" + "sa_" + r(32, AN) + "_" + r(8, HEX), "{}")
add("grafana_api_key", "eyJr" + "Ijoi" + r(80, AN), "{}")
add("sumo_id", "su" + r(12, AN), "SUMO_ACCESS_ID={}")
add("sumo_key", r(64, AN), "SUMO_ACCESS_KEY={}")
add("fastly", r(32, URL), "FASTLY_API_TOKEN={}")
add("algolia", r(32, HEX), "ALGOLIA_ADMIN_KEY={}")
add("adafruit", "ai" + "o_" + r(28, AN), "{}")
add("adafruit_legacy", r(32, ANL), "ADAFRUIT_IO_KEY={}")
add("adobe_secret", "p8" + "e-" + r(32, AN), "{}")
add("adobe_client_id", r(32, HEX), "ADOBE_CLIENT_ID={}")
add("beamer", "b_" + r(44, URL), "BEAMER_API_KEY={}")
add("bittrex_key", r(32, ANL), "bittrex key: {}")
add("meraki", r(40, HEX), "MERAKI_API_KEY={}")
add("confluent_key", r(16, ANU), "CONFLUENT_API_KEY={}")
add("confluent_secret", r(64, AN), "CONFLUENT_API_SECRET={}")
add("dropbox_short", "s" + "l." + r(135, URL), "{}")
add("dropbox_long", r(11, ANL) + "AAAAAAAAAA" + r(43, URL), "DROPBOX_TOKEN={}")
add("dropbox_app_secret", r(15, ANL), "DROPBOX_APP_SECRET={}")
add("etsy", r(24, ANL), "ETSY_API_KEY={}")
add("facebook_page", "EA" + "AC" + r(120, AN), "{}")
add("facebook_access", r(15, DI) + "|" + r(32, URL), "{}")
add("facebook_secret", r(32, HEX), "FACEBOOK_APP_SECRET={}")
add("flickr", r(32, ANL), "FLICKR_API_KEY={}")
add("frameio", "fi" + "o-u-" + r(64, URL), "{}")
add("hashicorp_tf_password", r(16, ANL), 'administrator_login_password = "{}"')
add("intra42", "s-" + "s4t2ud-" + r(64, HEX), "{}")
add("linkedin_secret", r(16, ANL), "LINKEDIN_CLIENT_SECRET={}")
add("linkedin_id", r(14, ANL), "LINKEDIN_CLIENT_ID={}")
add("mapbox_secret", "s" + "k.eyJ1Ijoi" + b64url(30) + "." + r(22, URL), "{}")
add("mapbox_plain", "p" + "k." + r(60, ANL) + "." + r(22, ANL), "mapbox token {}")
add("nytimes", r(32, URL), "NYTIMES_API_KEY={}")
add("okta", "00" + r(40, URL), "OKTA_API_TOKEN={}")
add("rapidapi", r(50, URL), "RAPIDAPI_KEY={}")
add("twitch", r(30, ANL), "TWITCH_CLIENT_SECRET={}")
add("twitter_access_token", r(19, DI) + "-" + r(30, AN), "TWITTER_ACCESS_TOKEN={}")
add("twitter_access_secret", r(45, AN), "TWITTER_ACCESS_SECRET={}")
add("twitter_api_key", r(25, AN), "TWITTER_API_KEY={}")
add("twitter_api_secret", r(50, AN), "TWITTER_API_SECRET={}")
add("twitter_bearer", "A" * 22 + r(90, AN), "TWITTER_BEARER_TOKEN={}")
add("yandex_api", "AQ" + "VN" + r(36, URL), "{}")
add("yandex_aws", "YC" + r(38, URL), "YANDEX_AWS_SECRET={}")
add("yandex_access", "t1" + "." + r(20, URL) + "." + r(86, URL), "YANDEX_OAUTH_TOKEN={}")
add("sidekiq", r(8, HEX) + ":" + r(8, HEX), "BUNDLE_GEMS__CONTRIBSYS__COM={}")
add("posthog", "ph" + "x_" + r(47, AN), "{}")
add("segment", r(32, AN), "SEGMENT_WRITE_KEY={}")
add("mixpanel", r(32, HEX), "MIXPANEL_API_SECRET={}")
add("pagerduty", "u+" + r(18, URL), "PAGERDUTY_TOKEN={}")
add("auth0", r(64, URL), "AUTH0_CLIENT_SECRET={}")
# --- issue 23: formats the held-back corpus missed, and the shapes gitleaks' sample contexts use
add("heroku_v2_short", "HR" + "KU-" + r(40, URL), "heroku key {}")
add("stripe_restricted_prod", "r" + "k_prod_" + r(24), "{}")
add("stripe_secret_prod", "s" + "k_prod_" + r(12), "STRIPE={}")
add("facebook_page_lower", "EA" + "AM" + r(110, ANL), "{}")
add("facebook_user", "EA" + "AG" + r(150), "fb token {}")
add("twitter_xml", r(25, ANL), "<twitterToken>\n    {}\n</twitterToken>")
add("twitter_php", r(50, ANL), '$twitterToken .= "{}"')
add("mattermost_make", r(26, ANL), 'mattermost_TOKEN ::= "{}"')
add("sidekiq_make", r(8, HEX) + ":" + r(8, HEX), 'sidekiq_TOKEN ?= "{}"')
add("airtable_make", r(17, ANL), 'airtable_TOKEN :::= "{}"')
add("nytimes_snake", r(4, ANL) + "_" + r(27, ANL), 'nytimesToken = "{}"')
add("beamer_snake", "b_" + r(20, ANL) + "_" + r(21, ANL), "beamerToken={}")
add("kucoin_go_typed", r(24, HEX), 'var kucoinToken string = "{}"')
add("looker_setproperty", r(24, ANL), 'System.setProperty("LOOKER_TOKEN", "{}")')
add("nuget_config_password", r(22), '<add key="ClearTextPassword" value="{}" />')
add("prose_password_is", "Tr0ub" + r(4, DI) + "&x", "my password is {}")
add("prose_pin_is", r(6, DI), "My PIN is {}.")
add("prose_passcode", r(6, DI), "the passcode is {}")
add("prose_pw_colon", "hunter" + r(3, DI), "pw: {}")
add("prose_de", "Hagel-" + r(3, DI), "mein Passwort ist {}")
add("prose_fr", "Tr0ub" + r(4, DI), "mon mot de passe est {}.")
add("prose_es", "Clave" + r(4, DI) + "!", "mi contraseña es {}")
add("prose_pt", "Senha" + r(4, DI) + "#", "a minha senha é {}")
add("prose_it", "Parola" + r(4, DI), "la mia password è {}")
add("prose_ru", "Tr0ub" + r(4, DI), "мой пароль {}")
add("prose_pl", "Haslo" + r(4, DI), "moje hasło to {}")
add("prose_ja", "Tr0ub" + r(4, DI), "パスワードは {} です")
add("prose_zh", "Tr0ub" + r(4, DI), "我的密码是 {}")
# --- generic shapes
add("env_api_key", r(28, ANL), "SOME_SERVICE_API_KEY={}")
add("env_token_export", r(30, AN), "export WIDGET_TOKEN='{}'")
add("env_secret_colon", r(20, AN), "APP_SECRET: {}")
add("env_password", "Tr0ub4dor&3x", "DB_PASSWORD={}")
add("password_spaced", "hunter2-Hx", "password = {}")
add("password_dash", "Fjord-Light-0612", "Password - {}")
add("curl_user", "Kl0ckT0rn!", "curl -u mira:{} https://webdav.example.org/")
add("bearer_header", r(40, URL), "Authorization: Bearer {}")
add("basic_header", base64.b64encode(b"mira:" + r(12).encode()).decode(), "Authorization: Basic {}")
add("token_header", r(40, HEX), "Authorization: Token {}")
add("url_password", "pL4nt-p0ts-9x", "postgres://shop:{}@db.internal:5432/shop")
# --- issue 23
add("azure_sas_signature", r(43, AN) + "%3D", "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&sig={}")
add("s3_presigned_signature", r(64, HEX), "https://b.s3.amazonaws.com/k?X-Amz-Expires=3600&X-Amz-Signature={}")
add("curl_key_user", r(24, AN), "curl https://api.example.com/v1/charges -u {}:")
add("authorization_api_token", r(32, AN), "Authorization: Api-Token {}")
add("kubernetes_secret_data", r(24, AN) + "==", "kind: Secret\ndata:\n  smtp: {}\n")
add("labelled_in_prose", r(24, AN), "Here is the Acme API key for the staging box: {} (rotate it).")
add("makefile_provider", r(24, AN), "LOOKER_CLIENT_SECRET ?= {}")

PROVIDERS: list[Sample] = P
BY_NAME = {s.name: s for s in PROVIDERS}
assert len(BY_NAME) == len(PROVIDERS), "duplicate names"

if __name__ == "__main__":
    for s in PROVIDERS:
        print(f"{s.name:28} {s.context.format(s.secret)}")
