"""Redaction coverage against gitleaks' rule list: the share of generated secrets caught, per rule family.

    python benchmarks/bench_redact_coverage.py [--rules PATH] [--per-rule N] [--seed S] [--misses] [--tiny]

gitleaks' rules are not part of this repository.  Give the path of its ``config/gitleaks.toml`` with
``--rules``, or keep a copy in the cache, ``$XDG_CACHE_HOME/botmemory/gitleaks.toml`` (by default
``~/.cache/botmemory/gitleaks.toml``):

    mkdir -p ~/.cache/botmemory
    curl -fsSL -o ~/.cache/botmemory/gitleaks.toml \\
        https://raw.githubusercontent.com/gitleaks/gitleaks/master/config/gitleaks.toml

(or ``git clone https://github.com/gitleaks/gitleaks`` and pass ``--rules gitleaks/config/gitleaks.toml``).
The script prints the file's SHA-256 so that a figure names the rules it was measured on.

For each rule with a regex, *N* secrets (default 3) are generated from the regex itself: its parse tree is walked
with a seeded random choice at each branch, class and repeat (lazy repeats take their minimum; a letter class
inside a case-insensitive part that holds letters beyond a–f comes out in mixed case, as the providers' keys do;
the rule's secret is its secretGroup, else its first non-empty group, else the whole match, as gitleaks reads it).
A secret gitleaks itself would drop is drawn again: below the rule's entropy, or allowed by the global or the
rule's allowlist (regexes, stopwords).  Each secret then goes into the contexts below, under a key named after the
rule ("twitter-api-secret": TWITTER_API_SECRET, twitterApiSecret, "Twitter API secret"):

    raw       the whole generated match on a line of its own (the shape the rule itself reads)
    python    twitter_api_secret = "…"
    js        const twitterApiSecret = '…';
    env       TWITTER_API_SECRET=…
    yaml      a nested  twitter_api_secret: …
    json      {"twitterApiSecret": "…", "region": "eu-west-1"}
    prose     Here is the Twitter API secret for the staging box: … — rotate it after the demo.
    markdown  a note's bullet:  - **Twitter API secret:** `…`

A sample counts as caught when no 12-character piece of the secret survives redaction (bench_redact.py's rule;
a secret shorter than 12 must not survive whole).  The family of a rule is the first word of its id ("aws",
"github", "generic", …).  Last, the false redactions on real prose (bench_redact.py's corpus: the Debian
Reference and the man pages in eight languages when installed, else the committed excerpts; target 0).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import math
import os
import random
import re
import sys
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from botmemory.core.redact import find_secrets, redact

_parser: Any = __import__("re._parser", fromlist=["_parser"])
_constants: Any = __import__("re._constants", fromlist=["_constants"])

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import tiny_defaults  # noqa: E402 - the benchmarks' shared helpers

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "botmemory" / "gitleaks.toml"


# --- reading gitleaks' rules -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    id: str
    regex: re.Pattern[str]
    source: str  # the pattern as Python reads it
    secret_group: int
    entropy: float
    keywords: tuple[str, ...]
    allow_regexes: tuple[tuple[re.Pattern[str], str], ...]  # (regex, target: secret / match / line)
    stopwords: tuple[str, ...]

    @property
    def family(self) -> str:
        return self.id.split("-")[0]


_POSIX = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "xdigit": "0-9A-Fa-f", "upper": "A-Z",
    "lower": "a-z", "space": r" \t\n\r\f\v", "word": r"\w", "punct": r"!-/:-@\[-`{-~", "blank": r" \t",
}


def go_to_python(pattern: str) -> str:
    """A Go (RE2) pattern as Python's re reads it: POSIX classes spelled out, ``\\z`` as ``\\Z``, and flags set
    in the middle of a group (``p8e-(?i)[a-z0-9]{32}``: to the end of the group, in Go) as scoped groups, one
    per alternative left in the group."""
    pattern = re.sub(r"\[:(\w+):\]", lambda m: _POSIX[m.group(1)], pattern).replace(r"\z", r"\Z")
    out: list[str] = []
    open_scopes: list[int] = [0]  # per group depth: how many scoped-flag groups are open
    scopes_flags: list[list[str]] = [[]]
    i = 0
    in_class = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            if pattern.startswith("^]", i + 1) or pattern.startswith("]", i + 1):
                n = 2 if pattern[i + 1] == "^" else 1
                out.append(pattern[i + 1 : i + 1 + n])
                i += n
            i += 1
            continue
        m = re.compile(r"\(\?([a-zA-Z-]+)\)").match(pattern, i)
        if m is not None and i > 0:
            out.append(f"(?{m.group(1)}:")
            open_scopes[-1] += 1
            scopes_flags[-1].append(m.group(1))
            i = m.end()
            continue
        if c == "(":
            open_scopes.append(0)
            scopes_flags.append([])
        elif c == "|" and open_scopes[-1]:
            out.append(")" * open_scopes[-1] + "|" + "".join(f"(?{f}:" for f in scopes_flags[-1]))
            i += 1
            continue
        elif c == ")":
            out.append(")" * open_scopes.pop())
            scopes_flags.pop()
        out.append(c)
        i += 1
    out.append(")" * open_scopes[0])
    return "".join(out)


def read_rules(path: Path) -> list[Rule]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    glob = data.get("allowlist", {})
    glob_regexes = tuple((re.compile(go_to_python(r)), glob.get("regexTarget", "secret")) for r in glob.get("regexes", ()))
    glob_stop = tuple(glob.get("stopwords", ()))
    rules = []
    for r in data["rules"]:
        if "regex" not in r:
            continue  # a rule on file paths only
        source = go_to_python(r["regex"])
        allow_regexes = list(glob_regexes)
        stop = list(glob_stop)
        for al in r.get("allowlists", ()):
            if al.get("paths") and not al.get("regexes") and not al.get("stopwords"):
                continue
            target = al.get("regexTarget", "secret")
            allow_regexes += [(re.compile(go_to_python(x)), target) for x in al.get("regexes", ())]
            stop += al.get("stopwords", ())
        rules.append(Rule(r["id"], re.compile(source), source, int(r.get("secretGroup", 0)),
                          float(r.get("entropy", 0)), tuple(r.get("keywords", ())), tuple(allow_regexes), tuple(stop)))
    return rules


# --- generating a string a pattern matches -----------------------------------------------------------------

_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_UNIVERSE = _ALNUM + "_-.+/=:~!@#$%^&*,;?'\"`<>()[]{}| \t"
_CATEGORIES = {
    "CATEGORY_DIGIT": "0123456789", "CATEGORY_NOT_DIGIT": _ALNUM[:52] + "_-.",
    "CATEGORY_WORD": _ALNUM + "_", "CATEGORY_NOT_WORD": "-.+/=: ",
    "CATEGORY_SPACE": " ", "CATEGORY_NOT_SPACE": _ALNUM + "_-.+/=",
}


class _Walker:
    """Builds one string a parsed pattern matches, choosing at random where it may: an optional or zero-minimum
    repeat is taken once or not at all (the separators and padding around a value stay plausible, ``[\\s'"]{0,3}``
    is one character or none), a lazy one as few times as it may, another from its minimum to 16 more; an
    unescaped dot is a dot (a host name's, ``hooks.slack.com``) unless repeated."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.out: list[str] = []
        self.groups: dict[int, tuple[int, int]] = {}
        self.repeated: set[int] = set()  # groups inside a repeat: not a secret ("([a-z0-9]{4}-){3}")
        self.depth = 0  # repeats we are inside

    def text(self) -> str:
        return "".join(self.out)

    def pos(self) -> int:
        return sum(map(len, self.out))

    def walk(self, items: Any, icase: bool) -> None:
        for op, av in items:
            getattr(self, "op_" + str(op), self.op_other)(av, icase)

    def op_other(self, av: Any, icase: bool) -> None:  # AT, ASSERT, ASSERT_NOT: no characters
        pass

    def op_LITERAL(self, av: int, icase: bool) -> None:
        self.out.append(chr(av))

    def op_NOT_LITERAL(self, av: int, icase: bool) -> None:
        self.out.append(self.rng.choice([c for c in _ALNUM if ord(c) != av]))

    def op_ANY(self, av: Any, icase: bool) -> None:
        self.out.append(self.rng.choice(_ALNUM) if self.depth else ".")

    def op_CATEGORY(self, av: Any, icase: bool) -> None:
        self.out.append(self.rng.choice(_CATEGORIES[str(av)]))

    def op_IN(self, av: Any, icase: bool) -> None:
        allowed: set[str] = set()
        negate = False
        letter_range = False
        for op, a in av:
            name = str(op)
            if name == "NEGATE":
                negate = True
            elif name == "LITERAL":
                allowed.add(chr(a))
            elif name == "RANGE":
                allowed.update(chr(c) for c in range(a[0], a[1] + 1))
                letter_range = letter_range or chr(a[1]).lower() > "f"
            elif name == "CATEGORY":
                allowed.update(_CATEGORIES[str(a)])
        if negate:
            allowed = {c for c in _ALNUM + "_-.+/=" if c not in allowed and c.lower() not in allowed}
        pool = sorted(allowed)
        c = self.rng.choice(pool)
        # A range of letters beyond a-f (not hex) inside a case-insensitive part: mixed case.
        if icase and letter_range and c.isalpha() and self.rng.random() < 0.5:
            c = c.swapcase()
        self.out.append(c)

    def op_BRANCH(self, av: Any, icase: bool) -> None:
        self.walk(self.rng.choice(av[1]), icase)

    def op_SUBPATTERN(self, av: Any, icase: bool) -> None:
        group, add, dele, body = av
        icase = (icase or bool(add & re.IGNORECASE)) and not dele & re.IGNORECASE
        start = self.pos()
        self.walk(body, icase)
        if group is not None:
            self.groups[group] = (start, self.pos())
            if self.depth:
                self.repeated.add(group)

    def op_ATOMIC_GROUP(self, av: Any, icase: bool) -> None:
        self.walk(av, icase)

    def _repeat(self, av: Any, icase: bool, lazy: bool) -> None:
        lo, hi, body = av
        if lazy:
            n = lo
        elif lo == 0:
            n = self.rng.randint(0, 1)
        else:
            n = self.rng.randint(lo, lo + 16 if hi == _constants.MAXREPEAT else min(hi, lo + 16))
        self.depth += hi > 1
        for _ in range(n):
            self.walk(body, icase)
        self.depth -= hi > 1

    def op_MAX_REPEAT(self, av: Any, icase: bool) -> None:
        self._repeat(av, icase, lazy=False)

    def op_POSSESSIVE_REPEAT(self, av: Any, icase: bool) -> None:
        self._repeat(av, icase, lazy=False)

    def op_MIN_REPEAT(self, av: Any, icase: bool) -> None:
        self._repeat(av, icase, lazy=True)

    def op_GROUPREF(self, av: int, icase: bool) -> None:
        s, e = self.groups.get(av, (0, 0))
        self.out.append(self.text()[s:e])


def _shannon(s: str) -> float:
    n = len(s)
    return -sum(v / n * math.log2(v / n) for v in Counter(s).values()) if n else 0.0


def _allowed(rule: Rule, secret: str, match: str) -> bool:
    """Whether gitleaks would drop this finding (its allowlists), or it is below the rule's entropy."""
    if rule.entropy and _shannon(secret) < rule.entropy:
        return True
    if any(w.lower() in secret.lower() for w in rule.stopwords):
        return True
    return any(rx.search({"match": match, "line": match}.get(target, secret)) for rx, target in rule.allow_regexes)


def generate(rule: Rule, rng: random.Random, tries: int = 60) -> tuple[str, str] | None:
    """A (whole match, secret) pair the rule's regex finds and gitleaks would report, or None."""
    tree = _parser.parse(rule.source)
    icase = bool(tree.state.flags & re.IGNORECASE)
    for _ in range(tries):
        w = _Walker(rng)
        w.walk(tree, icase)
        full = w.text().rstrip("\n")
        m = rule.regex.search(full + "\n")
        if m is None:
            continue
        if rule.secret_group:
            secret = m.group(rule.secret_group) or ""
        else:  # gitleaks' first non-empty group, but neither a repeated piece nor a named label (jwt-base64's alg)
            named = set(rule.regex.groupindex.values())
            groups = [i for i in range(1, rule.regex.groups + 1) if i not in w.repeated and i not in named]
            secret = next((m.group(i) for i in groups if m.group(i)), m.group(0))
        secret = secret.strip()
        if len(secret) < 4 or "\n" in secret or _allowed(rule, secret, m.group(0)):
            continue
        return full, secret
    return None


# --- contexts ----------------------------------------------------------------------------------------------

_ACRONYMS = {"api", "aws", "gcp", "id", "jwt", "pat", "sdk", "ssh", "url", "pgp", "oauth", "smtp", "ci", "cli"}


def key_names(rule: Rule) -> dict[str, str]:
    words = [w for w in re.split(r"[-_.]+", rule.id) if w] or ["secret"]
    if not any(w in ("key", "token", "secret", "password", "pat", "credential", "credentials") for w in words):
        words.append("key")
    phrase = " ".join(w.upper() if w in _ACRONYMS else w for w in words)
    return {
        "snake": "_".join(words),
        "upper": "_".join(words).upper(),
        "camel": words[0] + "".join(w.capitalize() for w in words[1:]),
        "phrase": phrase[0].upper() + phrase[1:],
        "parent": words[0],
    }


CONTEXTS: dict[str, str] = {
    "raw": "{full}\n",
    "python": 'import os\n\n{snake} = "{secret}"\nclient = Client({snake})\n',
    "js": "const {camel} = '{secret}';\nexport default {{ {camel} }};\n",
    "env": "DEBUG=false\n{upper}={secret}\nPORT=8080\n",
    "yaml": "{parent}:\n  region: eu-west-1\n  {snake}: {secret}\n  timeout: 30\n",
    "json": '{{"{camel}": "{secret}", "region": "eu-west-1"}}\n',
    "prose": "Here is the {phrase} for the staging box: {secret} — rotate it after the demo.\n",
    "markdown": "## Deploy notes\n\n- owner: ops team\n- **{phrase}:** `{secret}`\n- renewed 2026-03-01\n",
}


@dataclass(frozen=True)
class Sample:
    rule: Rule
    context: str
    secret: str
    text: str


def samples(rules: list[Rule], per_rule: int = 3, seed: int = 23) -> Iterator[Sample]:
    for rule in rules:
        rng = random.Random(f"{seed}:{rule.id}")
        names = key_names(rule)
        for _ in range(per_rule):
            got = generate(rule, rng)
            if got is None:
                continue
            full, secret = got
            for name, form in CONTEXTS.items():
                yield Sample(rule, name, secret, form.format(full=full, secret=secret, **names))


def caught(secret: str, redacted: str) -> bool:
    w = 12
    if secret not in redacted and len(secret) < w:
        return True
    pieces = [secret[i : i + w] for i in range(max(1, len(secret) - w + 1))]
    return secret not in redacted and not any(len(p) == w and p in redacted for p in pieces)


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", type=Path, default=CACHE, help=f"gitleaks.toml (default: {CACHE})")
    ap.add_argument("--per-rule", type=int, default=3, help="secrets generated per rule (default 3)")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--misses", action="store_true", help="print one missed sample of each rule that misses")
    ap.add_argument("--no-prose", action="store_true", help="skip the false-redaction count on real prose")
    args = tiny_defaults(ap, per_rule=1).parse_args()
    if not args.rules.is_file():
        sys.exit(f"no gitleaks rules at {args.rules}: see the top of {Path(__file__).name} for how to get them")

    raw = args.rules.read_bytes()
    rules = read_rules(args.rules)
    print(f"gitleaks rules: {args.rules} (sha256 {hashlib.sha256(raw).hexdigest()[:16]}), "
          f"{len(rules)} rules with a regex")
    by_family: dict[str, Counter[bool]] = defaultdict(Counter)
    by_context: dict[str, Counter[bool]] = defaultdict(Counter)
    by_rule: dict[str, Counter[bool]] = defaultdict(Counter)
    missed: dict[str, Sample] = {}
    made = set()
    for s in samples(rules, args.per_rule, args.seed):
        ok = caught(s.secret, redact(s.text))
        by_family[s.rule.family][ok] += 1
        by_context[s.context][ok] += 1
        by_rule[s.rule.id][ok] += 1
        made.add(s.rule.id)
        if not ok:
            missed.setdefault(s.rule.id, s)
    unmade = [r.id for r in rules if r.id not in made]
    if unmade:
        print(f"no sample could be generated for: {', '.join(unmade)}")

    def share(c: Counter[bool]) -> str:
        n = c[True] + c[False]
        return f"{c[True]:6}/{n:<6} {c[True] / n:7.1%}"

    print(f"\n{'family':24} {'rules':>5} {'caught/samples':>14} {'share':>7}")
    rules_of = Counter(r.family for r in rules if r.id in made)
    for fam in sorted(by_family, key=lambda f: (by_family[f][True] / sum(by_family[f].values()), f)):
        print(f"{fam:24} {rules_of[fam]:5} {share(by_family[fam])}")
    print(f"\n{'context':24} {'caught/samples':>20} {'share':>7}")
    for ctx in CONTEXTS:
        print(f"{ctx:24} {'':5} {share(by_context[ctx])}")
    total: Counter[bool] = sum(by_family.values(), Counter())
    whole = sum(1 for c in by_rule.values() if not c[False])
    print(f"\n{'overall':24} {len(made):5} {share(total)}   rules caught in every sample: {whole}/{len(made)}")
    if args.misses:
        print("\nmissed (one sample a rule):")
        for rid, s in sorted(missed.items()):
            print(f"  {rid} [{s.context}] {s.text.strip()[:160]!r}")

    if not args.no_prose:
        bench = _load("bench_redact_for_coverage", HERE / "bench_redact.py")
        size = false = 0
        for _, text in bench.real_prose():
            size += len(text.encode())
            false += len(find_secrets(text))
        print(f"\nfalse redactions on real prose: {false} in {size:,} bytes (target 0)")


if __name__ == "__main__":
    main()
