"""Regenerate prose/generated-*.md: ordinary notes full of secret-looking noise.

    python tests/core/data/redaction/gen_prose.py

The output is deterministic (fixed seed) and committed; the test only reads
the .md files.  Everything here is the kind of thing people keep in notes for
an assistant and that a redactor must leave alone: git SHAs, UUIDs, checksums,
image digests, paths, URLs, versions, phone numbers, shell commands, config
with placeholder passwords, public keys and certificates, low-entropy
base64-looking words, long compound words, CamelCase identifiers, hashtags and
tables.  The hand-written files next to them cover natural prose.
"""

from __future__ import annotations

import base64
import hashlib
import random
import uuid
from pathlib import Path

OUT = Path(__file__).parent / "prose"
R = random.Random(20261014)

FIRST = [
    "Anna",
    "Jonas",
    "Priya",
    "Tomasz",
    "Lea",
    "Marco",
    "Sanna",
    "Ville",
    "Helmi",
    "Kaisa",
    "Daniel",
    "Aino",
    "Leo",
    "Jussi",
    "Erkki",
    "Pekka",
    "Laura",
    "Ravi",
    "Mika",
    "Noora",
    "Olli",
    "Sofia",
    "Elias",
    "Hanna",
    "Matti",
    "Ingrid",
    "Björn",
]
LAST = [
    "Korhonen",
    "Virtanen",
    "Mäkinen",
    "Nieminen",
    "Lindqvist",
    "Okafor",
    "Haddad",
    "Costa",
    "Saarinen",
    "Laine",
    "Heikkinen",
    "Schmidt",
    "Nowak",
    "Rossi",
    "Berg",
]
PROJECTS = [
    "orders-api",
    "payments-api",
    "notify",
    "search-indexer",
    "notes-sync",
    "web-shop",
    "admin-console",
    "billing-worker",
    "photo-importer",
    "ha-config",
]
TEAMS = ["platform", "payments", "growth", "data", "mobile", "security"]
CITIES = [
    "Helsinki",
    "Tampere",
    "Turku",
    "Oulu",
    "Stockholm",
    "Berlin",
    "Tallinn",
    "Lisbon",
    "Porto",
    "Gdańsk",
    "Kraków",
    "Copenhagen",
    "Oslo",
    "Vienna",
]
FOODS = [
    "karjalanpiirakka",
    "lohikeitto",
    "dal",
    "shakshuka",
    "pulla",
    "sourdough",
    "Zwetschgendatschi",
    "ramen",
    "falafel",
    "risotto",
    "moussaka",
    "pierogi",
]
VERBS = [
    "merged",
    "reverted",
    "cherry-picked",
    "rebased",
    "tagged",
    "deployed",
    "reviewed",
]
COMPOUNDS = [
    "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz",
    "Donaudampfschifffahrtsgesellschaftskapitän",
    "Kraftfahrzeughaftpflichtversicherung",
    "Arbeitsunfähigkeitsbescheinigung",
    "Grundstücksverkehrsgenehmigungszuständigkeitsübertragungsverordnung",
    "Lebensabschnittsgefährte",
    "Streichholzschächtelchen",
    "Eierschalensollbruchstellenverursacher",
    "Bezirksschornsteinfegermeister",
    "Nahrungsmittelunverträglichkeit",
    "lentokonesuihkuturbiinimoottoriapumekaanikkoaliupseerioppilas",
    "kolmivaihekilowattituntimittari",
    "hätäuloskäyntimerkintävalaisin",
    "järjestelmällistyttämättömyydellänsäkäänköhän",
    "pääkaupunkiseutu",
    "kansaneläkelaitos",
    "yhdyskuntasuunnittelu",
    "liikennevalo-ohjausjärjestelmä",
    "sjuksköterskeutbildning",
    "realisationsvinstbeskattning",
    "nordøstersøkystfiskeriforvaltningsmyndighed",
]
CAMEL = [
    "AbstractSingletonProxyFactoryBean",
    "SimpleBeanFactoryAwareAspectInstanceFactory",
    "UserAccountSettingsRepositoryImpl",
    "HttpClientConnectionManagerFactoryV2",
    "getHTTPResponseCodeForRequestV2",
    "TransactionAwarePersistenceManagerFactoryProxy",
    "OrderFulfillmentEventPublisher2024",
    "ReactiveMongoRepositoryConfigurationExtension",
    "NotificationDeliveryRetryPolicyHandler",
    "handleUserAuthenticationCallbackAsync",
    "InternalFrameInternalFrameTitlePaneInternalFrameTitlePaneMaximizeButtonWindowNotFocusedState",
    "CompositeDisposableObserverSubscriptionManager3",
    "parseISO8601DurationWithFractionalSeconds",
]
HASHTAGS = [
    "#mökkielämä",
    "#sourdough",
    "#ThrowbackThursday",
    "#100DaysOfCode",
    "#Helsinki",
    "#running",
    "#homelab",
    "#selfhosted",
    "#bookclub",
    "#Lapland2027",
    "#zone2",
    "#meatlessmonday",
    "#allotment",
    "#DevOps",
    "#postmortem",
    "#SaunaSunday",
    "#ObsidianMD",
    "#Python312",
    "#kubernetes",
    "#revontulet",
    "#NorthernLights2026",
]
PLACEHOLDER_PASSWORDS = [
    "<your password>",
    "<password>",
    "${DB_PASSWORD}",
    "$DB_PASSWORD",
    "${{ secrets.DB_PASSWORD }}",
    "{{ vault_db_password }}",
    "changeme",
    "your-password-here",
    "your_password",
    "xxxxxxxx",
    "********",
    "...",
    "<redacted>",
    "REPLACE_ME",
    "%(db_password)s",
    "!secret db_password",
    "${DB_PASSWORD:?set it in .env}",
    "none",
    "null",
    "placeholder",
    "example",
    "<from 1Password>",
]
PLACEHOLDER_KEYS = [
    "your_api_key",
    "<your API key>",
    "${OPENAI_API_KEY}",
    "$STRIPE_SECRET_KEY",
    "YOUR_TOKEN_HERE",
    "{{ api_token }}",
    "xxx",
    "<paste token here>",
    "${{ secrets.GITHUB_TOKEN }}",
    "changeme",
    "your-api-key",
    "sk-...",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "AKIAXXXXXXXXXXXXXXXX",
    "<token>",
    "null",
    '""',
]


def sha(n: int = 40) -> str:
    return "".join(R.choice("0123456789abcdef") for _ in range(n))


def uid() -> str:
    return str(uuid.UUID(int=R.getrandbits(128), version=4))


def ver() -> str:
    return f"{R.randint(0, 7)}.{R.randint(0, 30)}.{R.randint(0, 20)}"


def phone() -> str:
    return R.choice(
        [
            f"+358 40 {R.randint(100, 999)} {R.randint(1000, 9999)}",
            f"+358 50 555 {R.randint(1000, 9999)}",
            f"09 {R.randint(100, 999)} {R.randint(10000, 99999)}",
            f"+49 30 {R.randint(1000000, 9999999)}",
            f"+1 (415) 555-{R.randint(1000, 9999)}",
            f"+46 8 {R.randint(100, 999)} {R.randint(10, 99)} {R.randint(10, 99)}",
            f"040-{R.randint(1000000, 9999999)}",
        ]
    )


def person() -> str:
    return f"{R.choice(FIRST)} {R.choice(LAST)}"


def date() -> str:
    return f"2026-{R.randint(1, 12):02d}-{R.randint(1, 28):02d}"


def path() -> str:
    return R.choice(
        [
            f"/Users/mira/Projects/{R.choice(PROJECTS)}/src/{R.choice(CAMEL)}.java",
            f"/home/mira/code/{R.choice(PROJECTS)}/tests/fixtures/{date()}_export_v{R.randint(2, 9)}.json",
            f"~/Library/Application Support/Obsidian/{R.choice(['obsidian.json', 'Preferences', 'Local Storage/leveldb/000003.log'])}",
            "C:\\Users\\Mira\\AppData\\Local\\Programs\\"
            + R.choice(["Obsidian", "Microsoft VS Code", "Python\\Python312"])
            + "\\"
            + R.choice(["Obsidian.exe", "Code.exe", "python.exe"]),
            f"/Volumes/PhotoArchive2024/RAW/{date()}-Lapland/DSC0{R.randint(1000, 9999)}.ARW",
            f"/var/lib/docker/overlay2/{sha(64)}/diff/usr/local/lib/python3.12/site-packages",
            f"/nix/store/{''.join(R.choice('0123456789abcdfghijklmnpqrsvwxyz') for _ in range(32))}-python3-3.12.{R.randint(0, 8)}",
            f"./node_modules/.pnpm/@babel+core@7.{R.randint(10, 26)}.{R.randint(0, 9)}/node_modules/@babel/core/lib/index.js",
            f"/mnt/nas/volume1/photos/library/upload/{uid()}/{sha(2)}/{sha(2)}/{uid()}.jpg",
            f"src/main/java/com/example/{R.choice(['orders', 'billing', 'notify'])}/{R.choice(CAMEL)}Test.java",
            f"/tmp/pytest-of-mira/pytest-{R.randint(10, 400)}/test_roundtrip_{R.randint(0, 9)}/workspace/MEMORY.md",
        ]
    )


def url() -> str:
    doc_id = "1" + "".join(
        R.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
        for _ in range(43)
    )
    return R.choice(
        [
            f"https://github.com/mira-lindqvist/{R.choice(PROJECTS)}/commit/{sha()}",
            f"https://github.com/mira-lindqvist/{R.choice(PROJECTS)}/pull/{R.randint(10, 3000)}#discussion_r{R.randint(10**8, 10**9)}",
            f"https://docs.google.com/document/d/{doc_id}/edit?usp=sharing",
            f"https://drive.google.com/file/d/{doc_id}/view",
            f"https://www.youtube.com/watch?v={''.join(R.choice('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-') for _ in range(11))}&t={R.randint(10, 900)}s",
            f"https://www.google.com/maps/place/{R.choice(CITIES)}/@60.{R.randint(100000, 999999)},24.{R.randint(100000, 999999)},14z/data=!3m1!4b1!4m6!3m5!1s0x{sha(16)}:0x{sha(16)}!8m2!3d60.16!4d24.93",
            f"https://app.datadoghq.eu/apm/trace/{R.randint(10**18, 10**19)}?spanID={R.randint(10**18, 10**19)}",
            f"https://{R.choice(PROJECTS)}.example.com/api/v{R.randint(1, 3)}/orders/{uid()}?include=items,payments",
            f"https://www.booking.com/hotel/fi/{R.choice(['pikku-ounas', 'hotel-kamp', 'lapland-cabin'])}.html?aid=304142&label=gen173nr-1FCAEoggI46AdIM1gEaEiIAQGYAQm4ARfIAQzYAQHoAQH4AQuIAgGoAgO4Ap",
            f"https://open.spotify.com/playlist/37i9dQZF1DX{''.join(R.choice('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789') for _ in range(11))}",
            f"https://en.wikipedia.org/wiki/{R.choice(['Karelian_pasty', 'Sisu', 'Piranesi_(novel)', 'Continuation_War'])}",
            f"https://registry.npmjs.org/@babel/core/-/core-7.{R.randint(10, 26)}.0.tgz",
            f"https://web.archive.org/web/2024{R.randint(10**9, 10**10 - 1)}/https://blog.lindqvist.dev/{R.choice(['sauna', 'homelab', 'books'])}/",
        ]
    )


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def lowentropy_b64() -> str:
    word = R.choice(
        [
            b"test",
            b"aaaa",
            b"hello world ",
            b"foobar",
            b"password",
            b"abc",
            b"la",
            b"sauna ",
        ]
    )
    return R.choice(
        [
            b64(word * R.randint(8, 16)),
            b64(hashlib.sha1(word).hexdigest().encode()),  # base64 of hex
            b64(hashlib.md5(word).hexdigest().encode()),
            "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "aaaaBBBBccccDDDD1111222233334444",
            "Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1Aa1",
            "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB",
            "0123456789ABCDEFabcdef0123456789ABCDEFab",
            "xXxXxXxXxXxXxXxXxXxXxXxXxXxXxXxXxXxX1234",
        ]
    )


def pem_public(label: str, prefix: str, nbytes: int) -> str:
    body = prefix + b64(bytes(R.getrandbits(8) for _ in range(nbytes)))
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])


def ssh_pub() -> str:
    if R.random() < 0.5:
        return (
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"
            + b64(bytes(R.getrandbits(8) for _ in range(32)))[:43]
            + f" {R.choice(FIRST).lower()}@laptop"
        )
    return (
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ"
        + b64(bytes(R.getrandbits(8) for _ in range(380)))
        + f" {R.choice(FIRST).lower()}@desktop"
    )


# --------------------------------------------------------------------------
# Note sections
# --------------------------------------------------------------------------


def dev_journal() -> str:
    proj = R.choice(PROJECTS)
    lines = [f"### {date()} — {proj}", ""]
    for _ in range(R.randint(2, 4)):
        lines.append(
            R.choice(
                [
                    f"{R.choice(VERBS).capitalize()} PR #{R.randint(100, 3000)} (`{sha(7)}`) into `main`; CI run {R.randint(10**9, 10**10)} took {R.randint(2, 19)}m {R.randint(0, 59)}s.",
                    f"Bumped `{R.choice(['fastapi', 'sqlalchemy', 'pydantic', 'httpx', 'uvicorn', 'alembic'])}` from {ver()} to {ver()} after reading the changelog; nothing breaking for us.",
                    f"The flaky test `test_{R.choice(['checkout', 'refund', 'sync', 'import'])}_{R.choice(['applies_coupon_once', 'is_idempotent', 'handles_timeout', 'retries_on_409'])}` failed again on runner `gha-{sha(8)}`.",
                    f'{person()} found the regression: it came in with {sha()} ("{R.choice(["retry on transient errors", "batch writes", "use mtime_ns", "cache the token budget"])}").',
                    f"Request `{uid()}` timed out after 30 s; the trace is at {url()}.",
                    f"Docker image pushed: `registry.example.com/{proj}@sha256:{sha(64)}` (tag `{ver()}-{sha(7)}`).",
                    f"Config lives in `{path()}`; remember that the loader reads it only at start-up.",
                    f"Rotated the API key for {R.choice(['Datadog', 'Sentry', 'the SMS provider', 'Mapbox'])} on {date()} — the new one is in the secrets manager under `prod/{proj}/{R.choice(['api_key', 'dsn', 'token'])}`.",
                    f"The password policy is minimum 12 characters; the token TTL is {R.choice([15, 30, 60])} minutes and refresh tokens live {R.choice([7, 14, 30])} days.",
                    f"Benchmark on the M2: {R.randint(1000, 9000)} req/s at p99 {R.randint(3, 90)} ms (was {R.randint(500, 4000)} req/s before the change).",
                ]
            )
        )
    lines.append("")
    if R.random() < 0.6:
        lines += ["```", "$ git log --oneline -n 6"]
        for _ in range(6):
            lines.append(
                f"{sha(7)} {R.choice(['feat', 'fix', 'chore', 'docs', 'refactor'])}: {R.choice(['handle empty cart', 'bump deps', 'retry budget', 'typo in README', 'split the importer', 'drop python 3.9', 'faster index build'])}"
            )
        lines += ["```", ""]
    if R.random() < 0.5:
        lines += [
            "```sh",
            R.choice(
                [
                    f"docker pull ghcr.io/mira-lindqvist/{proj}:{ver()}",
                    f"kubectl -n {R.choice(TEAMS)} rollout restart deploy/{proj}",
                    f"gh run view {R.randint(10**9, 10**10)} --log-failed | less",
                    f"rsync -avh --progress {path()} nas:/volume1/backup/",
                    f"find . -name '*.pyc' -delete && python -m pytest -q tests/{R.choice(['unit', 'integration'])}",
                    f"curl -s https://{proj}.example.com/healthz | jq .version",
                    f"psql \"postgresql://{proj.replace('-', '_')}@localhost:5432/{proj.replace('-', '_')}\" -c 'select count(*) from orders'",
                    "aws s3 cp s3://mira-backups-nas/restic/config ./config --profile restic",
                    f"openssl s_client -connect {proj}.example.com:443 -servername {proj}.example.com </dev/null | openssl x509 -noout -dates",
                ]
            ),
            "```",
            "",
        ]
    return "\n".join(lines)


def checksums() -> str:
    lines = ["### Checksums", "", "```"]
    for _ in range(R.randint(3, 6)):
        name = R.choice(
            [
                "ubuntu-24.04.1-live-server-amd64.iso",
                "firmware-v2.3.bin",
                "notes-backup.tar.zst",
                "DSM_DS923+_72806.pat",
                "HAOS_rpi5-64-13.2.img.xz",
                "proxmox-ve_8.2-2.iso",
            ]
        )
        algo = R.choice(
            [("sha256sum", 64), ("md5sum", 32), ("sha1sum", 40), ("sha512sum", 128)]
        )
        lines.append(f"{sha(algo[1])}  {name}")
    lines += ["```", ""]
    lines.append(
        f"Git LFS pointer for the dataset: `oid sha256:{sha(64)}`, size {R.randint(10**6, 10**9)}."
    )
    lines.append(
        f"go.sum has `github.com/spf13/cobra v1.8.{R.randint(0, 9)} h1:{b64(bytes(R.getrandbits(8) for _ in range(32)))}`."
    )
    lines.append(
        f"Subresource integrity: `sha384-{b64(bytes(R.getrandbits(8) for _ in range(48)))}`."
    )
    lines.append(f"Container id `{sha(12)}` (full `{sha(64)}`), volume `{sha(64)}`.")
    lines.append("")
    return "\n".join(lines)


def placeholder_config() -> str:
    proj = R.choice(PROJECTS)
    pw = R.choice(PLACEHOLDER_PASSWORDS)
    key = R.choice(PLACEHOLDER_KEYS)
    style = R.randrange(5)
    if style == 0:
        body = [
            "```yaml",
            "database:",
            f"  host: db.{R.choice(TEAMS)}.internal",
            "  port: 5432",
            f"  user: {proj.replace('-', '_')}",
            f"  password: {pw}",
            "api:",
            f"  api_key: {key}",
            f"  timeout_seconds: {R.randint(5, 60)}",
            "```",
        ]
    elif style == 1:
        body = [
            "```ini",
            f"[{proj}]",
            f"user = {R.choice(FIRST).lower()}",
            f"password = {pw}",
            f"token = {key}",
            f"retries = {R.randint(1, 5)}",
            "```",
        ]
    elif style == 2:
        body = [
            "```sh",
            "DB_HOST=db.internal",
            f"DB_PASSWORD={pw if ' ' not in pw else '${DB_PASSWORD}'}",
            f"API_KEY={key if ' ' not in key else 'changeme'}",
            f"LOG_LEVEL={R.choice(['info', 'debug'])}",
            "```",
        ]
    elif style == 3:
        body = [
            "```json",
            "{",
            f'  "service": "{proj}",',
            f'  "password": "{pw}",',
            f'  "apiKey": "{key}",',
            '  "region": "eu-north-1"',
            "}",
            "```",
        ]
    else:
        body = [
            "```python",
            "import os",
            "",
            'DB_PASSWORD = os.environ["DB_PASSWORD"]',
            f'API_KEY = os.getenv("{proj.upper().replace("-", "_")}_API_KEY", "")',
            "token = get_token_from_keyring()",
            "client = Client(api_key=API_KEY, password=DB_PASSWORD, token=token)",
            "```",
        ]
    intro = R.choice(
        [
            f"Template for `{proj}` (the real values are in the secrets manager):",
            f"Example config from the {proj} README — fill in your own values:",
            f"What the `{proj}` config looks like, with the secrets left out:",
        ]
    )
    return "\n".join([intro, "", *body, ""])


def meeting() -> str:
    who = sorted({person() for _ in range(R.randint(3, 6))})
    lines = [
        f"### {date()} — {R.choice(TEAMS).capitalize()} sync",
        "",
        f"Present: {', '.join(who)}.",
        "",
    ]
    for i in range(R.randint(2, 4)):
        lines.append(
            f"{i + 1}. "
            + R.choice(
                [
                    f"{R.choice(who)} presented the Q{R.randint(1, 4)} numbers: {R.randint(60, 140)}% of target, churn {R.randint(1, 9)}.{R.randint(0, 9)}%.",
                    f"Incident {date()}: {R.randint(5, 90)} minutes, root cause a missing index on `orders.created_at`.",
                    f"Budget for {R.choice(CITIES)} offsite: €{R.randint(2, 30)},{R.randint(100, 999)} for {R.randint(8, 40)} people.",
                    f"Vendor contact {person()} ({phone()}) will send the contract by {date()}.",
                    f"Decision: keep the token budget at {R.choice([16, 24, 32])}k per conversation until finance answers.",
                    f"The API key rotation runbook needs an owner; {R.choice(who)} volunteered.",
                    f"Hiring: {R.randint(1, 4)} offers out, {R.randint(0, 3)} accepted.",
                ]
            )
        )
    lines += ["", "Action items:"]
    for _ in range(R.randint(1, 3)):
        lines.append(
            f"- [ ] {R.choice(who)} — {R.choice(['write the postmortem', 'update the runbook', 'book the room', 'review the design doc', 'ask legal about the DPA', 'fix the alert thresholds'])} by {date()}"
        )
    lines.append("")
    return "\n".join(lines)


def table() -> str:
    kind = R.randrange(3)
    if kind == 0:
        lines = ["| Host | IP | Image | Digest |", "|---|---|---|---|"]
        for _ in range(R.randint(3, 6)):
            lines.append(
                f"| {R.choice(PROJECTS)}-{R.randint(1, 9)} | 10.{R.randint(0, 255)}.{R.randint(0, 255)}.{R.randint(1, 254)} | `{R.choice(PROJECTS)}:{ver()}` | `sha256:{sha(64)}` |"
            )
    elif kind == 1:
        lines = ["| Word | Language | Meaning |", "|---|---|---|"]
        for w in R.sample(COMPOUNDS, 4):
            lines.append(
                f"| {w} | {'de' if w[0].isupper() else R.choice(['fi', 'sv', 'da'])} | (look up) |"
            )
    else:
        lines = ["| Date | Run | Time | HR |", "|---|---|---|---|"]
        for _ in range(R.randint(3, 7)):
            lines.append(
                f"| {date()} | {R.randint(5, 21)}.{R.randint(0, 9)} km | {R.randint(25, 130)}:{R.randint(0, 59):02d} | {R.randint(130, 165)} |"
            )
    return "\n".join(lines + [""])


def misc_paragraph() -> str:
    return R.choice(
        [
            f"Called {person()} at {phone()} about the {R.choice(FOODS)} recipe; she says the trick is {R.choice(['cold butter', 'a hot oven', 'patience', 'fresh cardamom'])}.",
            f"Flight AY {R.randint(100, 1999)} {R.choice(['HEL', 'KTT', 'OUL', 'BER', 'LIS'])}→{R.choice(['HEL', 'ARN', 'CPH', 'OSL', 'VIE'])} on {date()}, booking ref {''.join(R.choice('ABCDEFGHJKLMNPQRSTUVWXYZ23456789') for _ in range(6))}.",
            f"Compound word of the day: *{R.choice(COMPOUNDS)}*. Also *{R.choice(COMPOUNDS)}*.",
            f"Java class names at work are getting silly: `{R.choice(CAMEL)}` and `{R.choice(CAMEL)}`.",
            f"Tags: {' '.join(R.sample(HASHTAGS, 4))}",
            f"The ISBN is 978-{R.randint(0, 9)}-{R.randint(100, 999)}-{R.randint(10000, 99999)}-{R.randint(0, 9)}; DOI 10.{R.randint(1000, 9999)}/{R.choice(['jss', 'acm', 'nature'])}.{R.randint(10000, 99999)}.",
            f"Parcel tracking: JJFI{R.randint(10**17, 10**18 - 1)}, pickup code {R.randint(1000, 9999)} at the {R.choice(['K-Market', 'S-Market', 'R-Kioski'])} parcel locker.",
            f"Saved the file to `{path()}` and a copy to `{path()}`.",
            f"Read {url()} — worth it.",
            f"Low-entropy test strings I keep seeing in fixtures: `{lowentropy_b64()}` and `{lowentropy_b64()}`.",
            "Colour palette for the blog: #1e1e2e, #f5c2e7, #89b4fa, #a6e3a1 (Catppuccin Mocha).",
            f"Invoice {date().replace('-', '')}-{R.randint(100, 999)} for €{R.randint(50, 2000)}.{R.randint(10, 99)}, IBAN FI{R.randint(10, 99)} {R.randint(1000, 9999)} {R.randint(1000, 9999)} {R.randint(1000, 9999)} {R.randint(10, 99)}, reference {R.randint(10**9, 10**10)}.",
            f'The password manager is 1Password; the item for {R.choice(["the NAS", "the router", "the bank", "Nextcloud"])} is called "{R.choice(["Home", "Family", "Infra"])} – {R.choice(["NAS", "Router", "Bank", "Cloud"])}".',
            f"Tokenizer note: {R.choice(['GPT', 'Claude', 'Llama'])}-style BPE splits *{R.choice(COMPOUNDS)}* into {R.randint(8, 30)} tokens.",
            f"Version matrix: Python {R.choice(['3.11', '3.12', '3.13'])}, Node {R.randint(18, 23)}.{R.randint(0, 12)}.{R.randint(0, 9)}, Postgres {R.randint(13, 17)}.{R.randint(0, 5)}, build {R.randint(1000, 99999)}.",
        ]
    )


def keys_section() -> str:
    return "\n".join(
        [
            "### Public keys and certificates (fine to keep)",
            "",
            "```",
            ssh_pub(),
            ssh_pub(),
            "```",
            "",
            "```",
            R.choice(
                [
                    pem_public(
                        "CERTIFICATE", "MIIDdzCCAl+gAwIBAgIE", R.choice([600, 700, 800])
                    ),
                    pem_public(
                        "PUBLIC KEY",
                        "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA",
                        256,
                    ),
                    pem_public("PGP PUBLIC KEY BLOCK", "mQINBGR", 500),
                ]
            ),
            "```",
            "",
        ]
    )


SECTIONS = [
    (dev_journal, 5),
    (checksums, 2),
    (placeholder_config, 3),
    (meeting, 3),
    (table, 2),
    (misc_paragraph, 8),
    (keys_section, 1),
]


def note(target_bytes: int) -> str:
    fns = [f for f, w in SECTIONS for _ in range(w)]
    title = R.choice(
        [
            "Work journal",
            "Homelab log",
            "Scratchpad",
            "Notes for the assistant",
            "Inbox",
            "Daily notes",
            "Project log",
            "Misc",
        ]
    )
    parts = [f"# {title} ({R.choice(CITIES)})", ""]
    size = 0
    while size < target_bytes:
        block = R.choice(fns)()
        parts.append(block)
        parts.append("")
        size += len(block.encode())
    return "\n".join(parts)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for i in range(1, 9):
        (OUT / f"generated-{i:02d}.md").write_text(note(19_000), encoding="utf-8")


if __name__ == "__main__":
    main()
