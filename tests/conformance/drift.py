"""``./dev conformance --latest``: the differential suite against the newest agents on the registries.

Installs the newest ``openclaw``, ``hermes-agent`` and ``@anthropic-ai/claude-code`` (beside the pinned ones,
in the same cache), says which versions moved since the pinned ones botmemory's rules were proven against,
runs the suite against them and reports the drift: every case that differs is a rule that changed. Exit 0: no
drift.
"""
from __future__ import annotations

import os
import subprocess
import sys

from .install import CLAUDE_CODE, HERMES, OPENCLAW, Missing, install


def main(argv: list[str]) -> int:
    try:
        agents = install(latest=True)
    except Missing as e:
        print(f"conformance: {e}", file=sys.stderr)
        return 1
    for name, pinned, newest in (("openclaw", OPENCLAW, agents.openclaw_version),
                                 ("hermes-agent", HERMES, agents.hermes_version),
                                 ("@anthropic-ai/claude-code", CLAUDE_CODE, agents.claude_version)):
        moved = "same as pinned" if newest == pinned else f"newer than the pinned {pinned}"
        print(f"conformance --latest: {name} {newest} ({moved})", flush=True)
    env = {**os.environ, "BOTMEMORY_CONFORMANCE_LATEST": "1"}
    code = subprocess.call([sys.executable, "-m", "pytest", "-m", "conformance", "-p", "no:cacheprovider",
                            "tests/conformance", *argv], env=env)
    if code == 0:
        print("conformance --latest: no drift: botmemory loads what the newest agents load")
    else:
        print("conformance --latest: DRIFT: the cases above differ from what the newest agents load; "
              "their rules changed (add them as a new version in core/kinds, with its version in rules_versions)")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
