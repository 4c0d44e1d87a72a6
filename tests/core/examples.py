"""How many examples a property test generates: the CI profile by default, ten times as many with
``BOTMEMORY_PROPERTY=thorough`` (README: "Tests" says how long each takes)."""
from __future__ import annotations

import os

PROFILE = os.environ.get("BOTMEMORY_PROPERTY", "ci")
SCALE = {"ci": 1, "thorough": 10}


def examples(ci: int) -> int:
    """*ci* examples under the CI profile; ten times as many under the thorough one."""
    return ci * SCALE.get(PROFILE, 1)
