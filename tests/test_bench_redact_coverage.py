"""benchmarks/bench_redact_coverage.py reads gitleaks' rules as Go writes them and generates what each one finds.

Its figure is only as good as its samples: here, rules written the way gitleaks.toml writes them (flags set in the
middle of a group, POSIX classes, ``\\z``, a secret group, allowlists, an entropy floor) must each give samples
that their own regex finds, with the secret gitleaks would report, and none that gitleaks would drop.
"""
from __future__ import annotations

import importlib.util
import random
import re
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_redact_coverage.py"

RULES = r"""
[allowlist]
regexes = ['''^true|false|null$''']
stopwords = ["abcdefghijklmnopqrstuvwxyz"]

[[rules]]
id = "alibaba-access-key-id"
regex = '''\b(LTAI(?i)[a-z0-9]{20})(?:[\x60'"\s;]|\\[nr]|$)'''
entropy = 2
keywords = ["ltai"]

[[rules]]
id = "airtable-personnal-access-token"
regex = '''\b(pat[[:alnum:]]{14}\.[a-f0-9]{64})\b'''
keywords = ["airtable"]

[[rules]]
id = "twitter-api-secret"
regex = '''(?i)[\w.-]{0,50}?(?:twitter)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([a-z0-9]{50})(?:[\x60'"\s;]|\\[nr]|$)'''
keywords = ["twitter"]

[[rules]]
id = "microsoft-teams-webhook"
regex = '''https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}'''
keywords = ["webhookb2"]

[[rules]]
id = "sentry-org-token"
regex = '''\bsntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}(?:[^a-zA-Z0-9+/]|\z)'''
entropy = 4.5
keywords = ["sntrys_eyjpyxqio"]

[[rules]]
id = "generic-api-key"
regex = '''(?i)[\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150})(?:[\x60'"\s;]|\\[nr]|$)'''
secretGroup = 1
entropy = 3.5
keywords = ["key", "secret"]
[[rules.allowlists]]
regexTarget = "match"
regexes = ['''(?i)\bkey\b''']
stopwords = ["000000"]

[[rules]]
id = "pkcs12-file"
path = '''(?i)(?:^|\/)[^\/]+\.p(?:12|fx)$'''
"""


@pytest.fixture(scope="module")
def cov():
    spec = importlib.util.spec_from_file_location("bench_redact_coverage_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_go_patterns_read_as_python(cov):
    assert cov.go_to_python(r"\b(p8e-(?i)[a-z0-9]{32})") == r"\b(p8e-(?i:[a-z0-9]{32}))"
    assert cov.go_to_python(r"(a(?i)b|c)d") == r"(a(?i:b)|(?i:c))d"
    assert cov.go_to_python(r"(?i)x(?-i:Y)[[:digit:]]\z") == r"(?i)x(?-i:Y)[0-9]\Z"
    assert cov.go_to_python(r"[(?i)]x") == r"[(?i)]x"  # inside a class nothing is a flag
    assert re.fullmatch(cov.go_to_python(r"(a(?i)b|c)d"), "aBd")
    assert re.fullmatch(cov.go_to_python(r"(a(?i)b|c)d"), "Cd")
    assert not re.fullmatch(cov.go_to_python(r"(a(?i)b|c)d"), "ABd")


def test_every_rule_gives_samples_its_regex_finds(cov, tmp_path):
    path = tmp_path / "gitleaks.toml"
    path.write_text(RULES, encoding="utf-8")
    rules = cov.read_rules(path)
    assert [r.id for r in rules] == ["alibaba-access-key-id", "airtable-personnal-access-token", "twitter-api-secret",
                                     "microsoft-teams-webhook", "sentry-org-token", "generic-api-key"]  # path-only: none
    samples = list(cov.samples(rules, per_rule=5, seed=3))
    assert {s.rule.id for s in samples} == {r.id for r in rules}
    assert {s.context for s in samples} == set(cov.CONTEXTS)
    for s in samples:
        if s.context == "raw":
            m = s.rule.regex.search(s.text)
            assert m is not None and s.secret in m.group(0), s
        assert s.secret in s.text
        assert not cov._allowed(s.rule, s.secret, s.secret), s
    by_id = {s.rule.id: s for s in samples}
    assert by_id["alibaba-access-key-id"].secret.startswith("LTAI")
    assert len(by_id["twitter-api-secret"].secret) == 50  # the group, not the key and its '='
    assert by_id["microsoft-teams-webhook"].secret.startswith("https://")  # not the repeated ([a-z0-9]{4}-) group
    assert by_id["generic-api-key"].secret != "key"


def test_the_generator_honours_the_filters(cov, tmp_path):
    path = tmp_path / "gitleaks.toml"
    path.write_text(RULES, encoding="utf-8")
    generic = next(r for r in cov.read_rules(path) if r.id == "generic-api-key")
    assert cov._allowed(generic, "aaaaaaaaaaaa", "x=aaaaaaaaaaaa")  # below the entropy floor
    assert cov._allowed(generic, "Zq81000000Lm0Xp2", "token=Zq81000000Lm0Xp2")  # a stopword
    assert cov._allowed(generic, "Zq81Lm0Xp2Yv7Wt4", "key=Zq81Lm0Xp2Yv7Wt4")  # the rule's regex on the match
    assert not cov._allowed(generic, "Zq81Lm0Xp2Yv7Wt4", "token=Zq81Lm0Xp2Yv7Wt4")
    rng = random.Random(5)
    assert all(cov.generate(generic, rng) is not None for _ in range(20))


def test_caught_means_no_twelve_characters_survive(cov):
    secret = "Zq81Lm0Xp2Yv7Wt4Kd"
    assert cov.caught(secret, "token: «redacted 18 chars»")
    assert not cov.caught(secret, "token: Zq81Lm0Xp2Yv«redacted 6 chars»")
    assert cov.caught("hunter2", "pw «redacted 7 chars»") and not cov.caught("hunter2", "pw hunter2")
