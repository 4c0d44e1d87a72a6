"""The pre-filters of redaction (issue 14: recall's index build checks every topic for secrets) change no finding.

Redaction skips work where a cheap look proves a detector cannot match: one pass finds the text's gate runs (runs
of token characters, 12 or longer) and the token rules, the provider words and the high-entropy check look only
there; literals are found with str.find instead of a regex pass; one shared words pass finds the keywords and
nouns the assignment, credential and prose detectors start from.  Each test compares the gated scan with the same
scan with every gate off (``ungated``), on texts built from the rule tables and the sample corpora, with the only
trigger at the start, the end, mid-line, after non-ASCII text and after a CJK run.  The shapes reach the gates'
limits: shrinking a limit by one loses a finding (``test_each_limit_is_sharp``).
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core import redact as R
from tests.conftest import examples

DATA = Path(__file__).parents[1] / "data"

# The package and its modules: each module reads a name it imports from its own globals.
_MODULES = [R] + [importlib.import_module(f"{R.__name__}.{m.name}") for m in pkgutil.iter_modules(R.__path__)]


def _patch(mp: pytest.MonkeyPatch, name: str, value: object) -> None:
    """Set *name* to *value* in every module of the redact package that binds it."""
    where = [m for m in _MODULES if name in vars(m)]
    assert where, name
    for m in where:
        mp.setattr(m, name, value)


def _load(name: str, file: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, DATA / "redaction" / file)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


PROVIDERS = _load("botmemory_test_runs_providers", "providers.py").PROVIDERS
CASES = _load("botmemory_test_fake_secrets", "fake_secrets.py").CASES

CJK = "東京の設定メモ"
FILLER = "Notes from the week: the garden, the train to Lyon and a long call.\n"


def _places(trigger: str) -> list[str]:
    """*trigger* at the start, the end, mid-line, after non-ASCII text, after a CJK run (glued and spaced),
    alone, after a long stretch of prose, and glued to characters that join a gate run but not a window."""
    return [
        trigger,
        trigger + "\n" + FILLER,
        FILLER + trigger,
        FILLER + "and then " + trigger + " was it.\n" + FILLER,
        "Ünïcödé café — " + trigger,
        CJK + trigger,
        CJK + " " + trigger + " " + CJK,
        FILLER * 80 + trigger + "\n" + FILLER * 3,
        "- ~~" + trigger + "~~ · superseded",  # struck through: '~' is a gate character, not a window one
        "me@" + trigger + "|x",
        FILLER * 20 + "~" + trigger,
        FILLER * 20 + "|" + trigger + "@ done",
        "|" + trigger + "@",
    ]


@contextmanager
def _gates_off() -> Iterator[None]:
    """Every pre-filter off: every regex runs (no literal checked first), the token rules over all windows
    found the plain way, every provider word searched in the whole text, every keyword regex run over the whole
    text, entropy runs from the whole text, each word of the words pass searched for on its own (and every regex
    it gates run)."""
    with pytest.MonkeyPatch.context() as mp:
        def runs(scan: str) -> R._Runs:
            windows = list(R._runs(scan, R._WINDOW_TABLE, R._WINDOW_MIN_LEN))
            return R._Runs([(0, len(scan))], 10**9, windows)

        _patch(mp, "_find_runs", runs)
        _patch(mp, "_provider_windows", lambda scan, low, runs: low)
        _patch(mp, "_entropy_runs", lambda scan, windows: R._runs(scan, R._RUN_TABLE, R._ENTROPY_MIN_LEN))
        _patch(mp, "_matches_at", lambda low, starts, rx: (m.start() for m in rx.finditer(low)))
        _patch(mp, "_literal_hits", lambda low, word: (m.start() for m in re.finditer(re.escape(word), low)))
        _patch(mp, "_holds", lambda text, literal: True)
        _patch(mp, "_word_hits", _plain_word_hits)
        _patch(mp, "_found", lambda words, word: True)
        yield


def _plain_word_hits(low: str) -> dict[str, list[int]]:
    """The words pass done the plain way: one search of the text for each word."""
    return {w: list(R._literal_hits(low, w)) for w in R._WORDS}


def ungated(texts: list[str]) -> list[list[R._Span]]:
    with _gates_off():
        return [R._scan_text(t) for t in texts]


def gated(texts: list[str]) -> list[list[R._Span]]:
    return [R._scan_text(t) for t in texts]


def _assert_same(texts: list[str]) -> list[list[R._Span]]:
    want = ungated(texts)
    got = gated(texts)
    for text, w, g in zip(texts, want, got):
        assert g == w, f"{text[:160]!r}: gated {g} != ungated {w}"
    return got


# --- shapes built from the rule tables -----------------------------------------------------------------------

VALUE = "q8Zt3VwK9mR2xL7pN4"  # random-looking: what a provider-keyed value or a password looks like


def provider_shapes(reach_pad: int = 0) -> list[str]:
    """Each provider word before a value: near, and as far as _PROVIDER_TAIL_RE reads (30 name characters,
    three phrase words, quotes, ':::=' and padding), *reach_pad* characters farther still."""
    far_head = "x" * 30 + ("  K" + "y" * 15) * 3 + "   :::=" + " " * 5
    out = []
    for w in R._PROVIDER_WORDS:
        out += [f"{w.upper()}_API_KEY={VALUE}", f"{w} global key: {VALUE}", f"{w}{far_head}{VALUE}",
                f"{w} client id: 381938174923816"]  # digits only: a value from 15 on
    return out


def assignment_shapes() -> list[str]:
    """Each credential word as a key (all assignment shapes), as a flag as far from its '--' as the flag
    pattern reaches, as a dash note, and a .netrc line."""
    out = []
    for w in sorted(R._KEY_TAIL_WORDS):
        out += [
            f"{w}: {VALUE}",
            f"DB_{w.upper()}={VALUE}",
            f'"{w}": "{VALUE}"',
            f"--{w} {VALUE}",
            f"--a{'b' * 40}{w} {VALUE}",
            f"run it with --x-{w}={VALUE} tonight",
            f"{w.capitalize()} - {VALUE}",
            f"and {w}: {VALUE}",
            f"{{user: bob, {w}: {VALUE}}}",
            f"curl -H 'X-{w}: {VALUE}' https://x.test",
        ]
    out += [
        f"machine example.org login bob password {VALUE}",
        f"machine example.org p_w={VALUE}",
        # Lines that only a .netrc or a dash keyword brings in: "p_w" names a password, holds no keyword.
        f"machine\texample.org p_w={VALUE}",
        f"pwd - then p_w={VALUE}",
        f"passphrase\t-\tp_w={VALUE}",
        f"Authorization: Bearer {VALUE}",
        f"bearer {VALUE}",
        f"curl -u bob:{VALUE} https://x.test",
        f"curl -u {VALUE}: https://x.test",
        f"Authorization: {VALUE}",
        f"authorization: Api-Token {VALUE}",
        f"curl\t--user=bob:{VALUE} https://x.test",
        f"authorization = basic {VALUE}",
        f"Bearer\t{VALUE}",
        "Authorization: Bearer «redacted 18 chars» (a marker alone is never a secret)",
        f"https://bob:{VALUE}@db.example.org/x",
    ]
    return out


def prose_and_xml_shapes() -> list[str]:
    """Each prose noun before each kind of "is" and a value; credential-named XML elements and key/value
    attributes (the XML gates: '<' and "</", '=' and 'value="')."""
    out = []
    for noun in ("password", "Passcode", "passphrase", "passwd", "PIN", "Passwort", "Kennwort", "mot de passe",
                 "contraseña", "contrasena", "senha", "palavra-passe", "palavra passe", "parola d'ordine", "пароль",
                 "hasło", "パスワード", "暗証番号", "密码", "密碼", "口令"):
        out += [f"my {noun} is {VALUE}", f"{noun}: 48213", f'the {noun} was "{VALUE}"', f"мой {noun} {VALUE}",
                f"{noun}は{VALUE}", f"x{noun} is {VALUE}"]
    for noun in ("API key", "access key", "primary key", "token", "Secret", "password", "passphrase", "passes"):
        out += [f"the {noun} for the staging box: {VALUE}", f"{noun}s of the bot: `{VALUE}`", f"x{noun} for a: {VALUE}",
                f"the {noun} is {VALUE}", f"{noun} (prod) is: {VALUE}"]
    out += [f"kind: Secret\ndata:\n  smtp: {VALUE}\n", f"kind: 'secret'\nstringData:\n  a.b: |\n    {VALUE}\n",
            f"kind: ConfigMap\ndata:\n  smtp: {VALUE}\n"]
    for key in ("password", "apiToken", "ClearTextPassword", "signingKey", "p-w", "to.ken", "name"):
        out += [f"<{key}>{VALUE}</{key}>", f"<{key} id=\"1\">\n  {VALUE}\n</{key}>", f'<add key="{key}" value="{VALUE}"/>',
                f"<entry NAME='{key}' Value='{VALUE}'/>"]
    return out


def test_the_shapes_are_found() -> None:
    """Each shape (and each sample) is a finding on its own: the comparisons below are not about nothing."""
    shapes = provider_shapes() + assignment_shapes()
    missed = [s for s in shapes if not R._scan_text(s)]
    assert len(missed) < len(shapes) // 10, missed[:20]
    prose = prose_and_xml_shapes()  # and some that are not ("xpassword is …", <name>…</name>): each side of a gate
    assert len(prose) * 2 // 3 < sum(1 for s in prose if R._scan_text(s)) < len(prose)
    assert all(R._scan_text(f"{w}{'x' * 30}{('  K' + 'y' * 15) * 3}   =>     {VALUE}") for w in R._PROVIDER_WORDS)
    samples = [s.context.format(s.secret) for s in PROVIDERS] + [c.context.format(c.secret) for c in CASES]
    assert sum(1 for s in samples if R._scan_text(s)) > 0.95 * len(samples)
    assert not R._scan_text(FILLER) and not R._scan_text(CJK)


@pytest.mark.parametrize("source", ["providers", "fake_secrets", "provider_words", "assignments", "prose_and_xml"])
def test_each_trigger_anywhere_is_found_as_without_the_gates(source: str) -> None:
    triggers = {
        "providers": lambda: [s.secret for s in PROVIDERS] + [s.context.format(s.secret) for s in PROVIDERS],
        "fake_secrets": lambda: [c.secret for c in CASES] + [c.context.format(c.secret) for c in CASES],
        "provider_words": provider_shapes,
        "assignments": assignment_shapes,
        "prose_and_xml": prose_and_xml_shapes,
    }[source]()
    texts = [t for trigger in triggers for t in _places(trigger)]
    got = _assert_same(texts)
    assert sum(1 for g in got if g) > len(texts) // 2


def test_dense_texts_are_found_as_without_the_gates() -> None:
    """Texts full of keywords and token runs, where one regex pass replaces trying each place (flags, dash
    keywords) and one pass finds all windows and entropy runs; and the same shapes sparse in prose."""
    shapes = assignment_shapes() + provider_shapes() + prose_and_xml_shapes()
    dense = "\n".join(shapes)
    texts = [dense, dense + "\n" + " ".join(c.secret for c in CASES), FILLER * 600 + dense[:1500]]
    assert not R._sparse(R._find_runs(R._scan_copy(dense)).gate, dense)
    assert R._sparse(R._find_runs(R._scan_copy(texts[2])).gate, texts[2])
    got = _assert_same(texts)
    assert all(got)


def test_the_sample_corpora_are_found_as_without_the_gates() -> None:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(DATA.rglob("*"))
             if p.is_file() and p.suffix in (".md", ".py", ".txt", ".json", ".jsonl", "")]
    assert len(texts) > 30
    lines = sorted({line for t in texts for line in t.split("\n")})
    _assert_same(texts + lines)


# Each limit a gate relies on, and a change that makes it one too small.
_LIMITS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "provider reach": lambda mp: _patch(mp, "_PROVIDER_REACH", R._PROVIDER_REACH - 1),
    "flag reach": lambda mp: _patch(mp, "_FLAG_REACH", R._FLAG_REACH - 1),
}


@pytest.mark.parametrize("limit", list(_LIMITS))
def test_each_reach_is_sharp(limit: str) -> None:
    """The shapes above sit exactly at the gates' reach: one character less and the gated scan misses one
    (each in a page of prose, where a flag is looked for next to its keyword rather than by a regex pass)."""
    texts = [FILLER * 40 + t for t in provider_shapes() + assignment_shapes()]
    want = ungated(texts)
    with pytest.MonkeyPatch.context() as mp:
        _LIMITS[limit](mp)
        got = gated(texts)
    assert got != want


_GATED = [(rule, min_run) for rule, hay, _, min_run in R._RULE_PLAN if hay and min_run]


def _shortest(rule: R._Rule) -> str:  # noqa: C901
    """A text *rule* matches, built from its own pattern: each repeat at its minimum (an optional piece that
    may hold a character outside the gate taken once, so that it bounds the gate run), classes cycled."""
    allowed = frozenset(R._GATE_CHARS)

    def chars(items: list[tuple[object, object]]) -> list[str]:
        out: list[str] = []
        for o, a in items:
            if str(o) == "LITERAL":
                out.append(chr(a))  # type: ignore[arg-type]
            elif str(o) == "RANGE":
                out += [chr(c) for c in range(a[0], a[1] + 1)]  # type: ignore[index]
        return out

    def build(items: object, behind: str) -> str:
        out = behind
        for op, av in items:  # type: ignore[attr-defined]
            name = str(op)
            if name == "LITERAL":
                out += chr(av)
            elif name == "IN":
                out += chars(av)[0]
            elif name == "SUBPATTERN":
                out = build(av[3], out)
            elif name in R._REPEATS:
                body = av[2]
                n = av[0] or (0 if R._only(body, allowed) else 1)
                if len(body) == 1 and str(body[0][0]) == "IN":
                    cs = chars(body[0][1])
                    out += "".join(cs[i * 7 % len(cs)] for i in range(n))
                else:
                    for _ in range(n):
                        out = build(body, out)
            elif name == "BRANCH":
                out = min((build(b, out) for b in av[1]), key=len)
            elif name == "ASSERT" and av[0] == -1:  # a look-behind: the text before must hold it
                need = build(av[1], "")
                if not out.endswith(need) and need.endswith(out):
                    out = need
        return out

    return build(R._sre_parser.parse(rule.regex.pattern), "")


@pytest.mark.parametrize("rule,min_run", _GATED, ids=[r.kind for r, _ in _GATED])
def test_each_whole_text_rule_runs_at_its_gate_length(rule: R._Rule, min_run: int) -> None:
    """The shortest match of each rule that runs over the whole text is found, gated as ungated, and it lies in
    a gate run no shorter than the gate length read from the pattern; where it is exactly that long, a gate
    length one longer would lose it."""
    text = _shortest(rule)
    found = gated([text])[0]
    assert found == ungated([text])[0]
    assert any(k == rule.kind for _, _, k in found), (text, found)
    longest = R._find_runs(R._scan_copy(text)).longest
    assert longest >= min_run
    if longest == min_run:
        with pytest.MonkeyPatch.context() as mp:
            plan = tuple((r, h, n, m + 1 if r is rule else m) for r, h, n, m in R._RULE_PLAN)
            _patch(mp, "_RULE_PLAN", plan)
            _patch(mp, "_WHOLE_TEXT_PLAN", tuple(p for p in plan if p[1]))
            assert not any(k == rule.kind for _, _, k in gated([text])[0])


def test_most_gate_lengths_are_exact() -> None:
    exact = [r.kind for r, m in _GATED if R._find_runs(R._scan_copy(_shortest(r))).longest == m]
    assert len(exact) >= len(_GATED) - 1, exact


# --- the pieces --------------------------------------------------------------------------------------------


def _naive(low: str) -> tuple[str, ...]:
    return tuple(w for w in R._PROVIDER_WORDS if w in low)


@pytest.mark.parametrize("runs_from", [0, 4096])
def test_the_words_found_through_runs_are_those_a_search_finds(monkeypatch: pytest.MonkeyPatch, runs_from: int) -> None:
    _patch(monkeypatch, "_RUNS_FROM", runs_from)
    R._RUNS_CLEAN.clear()
    R._RUNS_WITH.clear()
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(DATA.rglob("*.md"))]
    texts += [s.context.format(s.secret) for s in PROVIDERS] + provider_shapes()
    for text in texts + ["\n".join(texts)]:
        low = R._lower(R._scan_copy(text))
        assert R._provider_words_in(low) == _naive(low)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(st.sampled_from([*R._PROVIDER_WORDS, "_", "-", " ", "\n", "X", "é", "İ", "µ", "語", "0"]),
                          st.text(max_size=6)), max_size=40))
def test_any_text_gives_the_same_words(pieces: list[str]) -> None:
    low = R._lower(R._scan_copy("".join(pieces)))
    saved = R._RUNS_FROM
    R._RUNS_FROM = 0
    try:
        assert R._provider_words_in(low) == _naive(low)
    finally:
        R._RUNS_FROM = saved



def test_the_words_pass_finds_what_a_search_for_each_word_finds() -> None:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(DATA.rglob("*"))
             if p.is_file() and p.suffix in (".md", ".py", ".txt")]
    texts += assignment_shapes() + prose_and_xml_shapes() + ["\n".join(texts)]
    found = 0
    for text in texts:
        low = R._lower(R._scan_copy(text))
        got = R._word_hits(low)
        assert got == _plain_word_hits(low)
        found += sum(map(len, got.values()))
    assert found > 1000


# Words glued to each other at every overlap the families allow ("tokennwort": token's 'k' starts kennwort).
_WORD_PIECES = st.sampled_from([*R._WORDS, "tok", "ken", "ennwort", "contra", "mac", "hine", "se", "p", "k", "c", "s",
                                "ss", "w", "PASS", "Key", "İ", "é", "語", " ", "\n"])


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.one_of(_WORD_PIECES, st.text(max_size=4)), max_size=30))
def test_any_text_gives_the_same_word_hits(pieces: list[str]) -> None:
    low = R._lower(R._scan_copy("".join(pieces)))
    assert R._word_hits(low) == _plain_word_hits(low)


def test_lower_is_str_lower_for_every_latin1_character() -> None:
    every = "".join(map(chr, range(256)))
    assert R._lower(every) == every.lower()
    assert R._lower(R._scan_copy("İstanbul ÀÉÎ ß µ 東京 Straße")) == R._scan_copy("İstanbul ÀÉÎ ß µ 東京 Straße").lower()
    assert R._lower("İx") == "İx"  # not Latin-1, and lower() would lengthen it: offsets kept, as before


def test_windows_and_entropy_runs_are_those_of_the_whole_text() -> None:
    texts = [s.context.format(s.secret) for s in PROVIDERS] + ["a" * 40 + "~" + "b" * 40 + "|x.y:" + "C1" * 20]
    for text in texts:
        scan = R._scan_copy(text)
        runs = R._find_runs(scan)
        assert runs.windows == list(R._runs(scan, R._WINDOW_TABLE, R._WINDOW_MIN_LEN))
        whole = list(R._runs(scan, R._RUN_TABLE, R._ENTROPY_MIN_LEN))
        assert list(R._entropy_runs(scan, runs.windows)) == whole


def test_the_gate_lengths_come_from_the_patterns() -> None:
    plan = {rule.kind: min_run for rule, hay, _, min_run in R._RULE_PLAN if hay}
    assert plan["azure_client_secret"] == 3 + 1 + 2 + 31
    assert plan["aws_secret_access_key"] == 40  # the value; the key and its separator hold spaces and quotes
    assert R._gate_length(re.compile(r"ab[ \t]cd")) == 0  # no stretch of 12
    assert R._gate_length(re.compile(r"x{12}", re.IGNORECASE)) == 0
    assert R._gate_length(re.compile(r"(?:a{12}|b{20})[ ]c{3}")) == 12


_PIECES = st.sampled_from([
    *R._PROVIDER_WORDS, *R._KEYWORDS, *R._WORDS, "password", "--", "--api-", " - ", ": ", "=", "=>", "machine ", "bearer ",
    " is ", " ist ", "мой ", "<", "</", ">", 'value="', "key='", "<password>", "'s ", "«",
    "authorization: token ", "curl -u a:", "://u:", "@h.io", "_", "-", " ", "\n", "X", "é", "İ", "µ", "語", "~~",
    "|", "%", "$", "0", "7", "Q~", VALUE, "a1B2c3D4e5F6g7H8i9J0kLmN", "Secret", "«redacted 5 chars»",
])


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=40))
def test_any_text_is_found_as_without_the_gates(pieces: list[str]) -> None:
    text = "".join(pieces)
    with _gates_off():
        want = R._scan_text(text)
    assert R._scan_text(text) == want
