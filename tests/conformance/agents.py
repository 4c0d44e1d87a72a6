"""The agents the differential suite proves botmemory against: one oracle module each.

Each module names its kind (``KIND``) and gives ``start(installed, home) -> Server``: a long-lived process
running that agent's own code (``oracle.Server``), asked one question per generated case.

- ``oracle_openclaw``: OpenClaw's dist, called from node 24 (``oracles/openclaw_oracle.mjs``).
- ``oracle_hermes``: hermes-agent's ``MemoryStore`` and config loader, in its own venv
  (``oracles/hermes_oracle.py``).
- Claude Code is no long-lived server: every case runs the real ``claude -p`` once (installed by
  ``install.py`` from ``@anthropic-ai/claude-code``) against a loopback fake of the Messages API and reads
  the request it sends (``claude_code/``: ``fake_model.py``, ``oracle.py``, and its tests).
"""
from __future__ import annotations

ORACLES = {
    "openclaw": "tests.conformance.oracle_openclaw",
    "hermes": "tests.conformance.oracle_hermes",
}
