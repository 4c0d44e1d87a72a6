"""The agents the differential suite proves botmemory against: one oracle module each.

Each module names its kind (``KIND``) and gives ``start(installed, home) -> Server``: a long-lived process
running that agent's own code (``oracle.Server``), asked one question per generated case.

- ``oracle_openclaw``: OpenClaw's dist, called from node 24 (``oracles/openclaw_oracle.mjs``).
- ``oracle_hermes``: hermes-agent's ``MemoryStore`` and config loader, in its own venv
  (``oracles/hermes_oracle.py``).
- Claude Code: add ``oracle_claude_code.py`` here — run the real ``claude -p`` (installed by
  ``install.py`` from ``@anthropic-ai/claude-code``) against a loopback fake of the Messages API and read
  the request it sends — with a ``test_claude_code.py`` beside ``test_openclaw.py``, and a line below.
"""
from __future__ import annotations

ORACLES = {
    "openclaw": "tests.conformance.oracle_openclaw",
    "hermes": "tests.conformance.oracle_hermes",
}
