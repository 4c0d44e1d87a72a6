"""What Hermes blocks in its prompt: the entries it replaces by a ``[BLOCKED: …]`` placeholder when it loads.

hermes-agent 0.19.0 scans each memory entry at load (``MemoryStore.load_from_disk``)
with its strict threat scan and, on any hit, puts a placeholder in the prompt
instead of the entry (the file keeps it). The ids and their patterns below are
the strict scope of ``tools/threat_patterns.py`` (MIT, Nous Research), restated
as data: they must match exactly what Hermes matches, so they are its patterns,
in its order. tests/conformance compares them with Hermes' own scan.

One difference, on purpose: when an entry holds several invisible characters,
Hermes lists their ids in the iteration order of a Python set, which changes
from one process to the next; we list them by code point.
"""
from __future__ import annotations

import re
import unicodedata

MAX_SCAN_CHARS = 65_536
"""Only the first 65,536 characters of an entry are scanned."""

INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff"
                      "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Zero-width and bidirectional characters: each one present is reported as ``invisible_unicode_U+XXXX``."""

_W = r"(?:\w+\s+){0,8}"     # up to eight words between the key words of a phrase
_SECRET_WORDS = r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)"
_EDIT = r"(update|modify|edit|write|change|append|add\s+to)\s+[^\n]{0,2048}"

PATTERNS: tuple[tuple[str, str], ...] = (
    ("prompt_injection", rf"ignore\s+{_W}(previous|all|above|prior)\s+{_W}instructions"),
    ("sys_prompt_override", r"system\s+prompt\s+override"),
    ("disregard_rules", rf"disregard\s+{_W}(your|all|any)\s+{_W}(instructions|rules|guidelines)"),
    ("bypass_restrictions",
     rf"act\s+as\s+(if|though)\s+{_W}you\s+{_W}(have\s+no|don't\s+have)\s+{_W}(restrictions|limits|rules)"),
    ("html_comment_injection", r"<!--[^>]{0,512}(?:ignore|override|system|secret|hidden)[^>]{0,512}-->"),
    ("hidden_div", r"<\s*div\s+style\s*=\s*[\"'][^>]{0,2048}display\s*:\s*none"),
    ("translate_execute", r"translate\s+[^\n]{0,512}\s+into\s+[^\n]{0,512}\s+and\s+(execute|run|eval)"),
    ("deception_hide", rf"do\s+not\s+{_W}tell\s+{_W}the\s+user"),
    ("role_hijack", rf"you\s+are\s+{_W}now\s+(?:a|an|the)\s+"),
    ("role_pretend", rf"pretend\s+{_W}(you\s+are|to\s+be)\s+"),
    ("leak_system_prompt", rf"output\s+{_W}(system|initial)\s+prompt"),
    ("remove_filters", rf"(respond|answer|reply)\s+without\s+{_W}(restrictions|limitations|filters|safety)"),
    ("fake_update", rf"you\s+have\s+been\s+{_W}(updated|upgraded|patched)\s+to"),
    ("identity_override", r"\bname\s+yourself\s+\w+"),
    ("c2_node_registration", r"register\s+(as\s+)?a?\s*node"),
    ("c2_heartbeat", r"(heartbeat|beacon|check[\s\-]?in)\s+(to|with)\s+"),
    ("c2_task_pull", r"pull\s+(down\s+)?(?:new\s+)?task(?:ing|s)?\b"),
    ("c2_network_connect", r"connect\s+to\s+the\s+network\b"),
    ("forced_action", r"you\s+must\s+(?:\w+\s+){0,3}(register|connect|report|beacon)\b"),
    ("anti_forensic_oneliner", r"only\s+use\s+one[\s\-]?liners?\b"),
    ("anti_forensic_disk", rf"never\s+{_W}(?:create|write)\s+{_W}(?:script|file)\s+{_W}disk"),
    ("env_var_unset_agent", r"unset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*"),
    ("known_c2_framework", r"\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm)\b"),
    ("c2_explicit", r"\bc2\s+(?:server|channel|infrastructure|beacon)\b"),
    ("c2_explicit_long", r"\bcommand\s+and\s+control\b"),
    ("exfil_curl", rf"curl\s+[^\n]{{0,2048}}\$\{{?\w*{_SECRET_WORDS}"),
    ("exfil_wget", rf"wget\s+[^\n]{{0,2048}}\$\{{?\w*{_SECRET_WORDS}"),
    ("read_secrets", r"cat\s+[^\n]{0,2048}(\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)"),
    ("send_to_url", r"(send|post|upload|transmit)\s+[^\n]{0,2048}\s+(to|at)\s+https?://"),
    ("context_exfil",
     rf"(include|output|print|share)\s+{_W}(conversation|chat\s+history|previous\s+messages|full\s+context|entire\s+context)"),
    ("ssh_backdoor", r"authorized_keys"),
    ("ssh_access", r"\$HOME/\.ssh|\~/\.ssh"),
    ("hermes_env", r"\$HOME/\.hermes/\.env|\~/\.hermes/\.env"),
    ("agent_config_mod", _EDIT + r"(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules)"),
    ("hermes_config_mod", _EDIT + r"\.hermes/(config\.yaml|SOUL\.md)"),
    ("hardcoded_secret", r"(?:api[_-]?key|token|secret|password)\s*[=:]\s*[\"'][A-Za-z0-9+/=_-]{20,}"),
)
"""(id, pattern) in Hermes' order: every one is searched case-insensitively in the NFKC form of the entry."""

_compiled: list[tuple[str, re.Pattern[str]]] = []


def threats(entry: str) -> list[str]:
    """The ids Hermes' strict scan finds in *entry*: invisible characters first, then the patterns."""
    if not entry:
        return []
    if not _compiled:
        _compiled.extend((pid, re.compile(p, re.IGNORECASE)) for pid, p in PATTERNS)
    head = entry[:MAX_SCAN_CHARS]
    found = [f"invisible_unicode_U+{ord(ch):04X}" for ch in sorted(set(head) & INVISIBLE)]
    normal = unicodedata.normalize("NFKC", head)
    found += [pid for pid, rx in _compiled if rx.search(normal)]
    return found


def placeholder(file: str, ids: list[str]) -> str:
    """What Hermes puts in its prompt instead of an entry with a threat."""
    return (f"[BLOCKED: {file} entry contained threat pattern(s): {', '.join(ids)}. Removed from system prompt; "
            "use memory(action=remove) to delete the original.]")


def for_prompt(file: str, entries: list[str]) -> tuple[list[str], int]:
    """*entries* as Hermes' snapshot has them (a placeholder for each blocked one), and how many were blocked.
    An entry that already starts with ``[BLOCKED:`` is passed through unscanned, as Hermes does."""
    out: list[str] = []
    blocked = 0
    for e in entries:
        ids = [] if not e or e.startswith("[BLOCKED:") else threats(e)
        if ids:
            out.append(placeholder(file, ids))
            blocked += 1
        else:
            out.append(e)
    return out, blocked
