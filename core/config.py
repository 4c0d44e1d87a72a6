"""Settings: the home's ``config.json`` (shared with a running bot server) and per-bot switches.

``config.json`` keys read here, as the spec names them: ``features.autoRecall``,
``memory.tidyHour``, ``helper.instanceId`` / ``helper.model``. Per-bot switches
(``memory``, ``upkeep``, ``helper``) live in ``<home>/settings/<bot>.json``.
Both files are read fresh on every call, so a change applies without a restart.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from .errors import BadInput
from .paths import Home
from .safeio import atomic_write, read_file

logger = logging.getLogger(__name__)

SWITCHES = ("memory", "upkeep", "helper")
DEFAULT_TIDY_HOUR = 3
_ON = {"on": True, "true": True, "1": True, "yes": True, "off": False, "false": False, "0": False, "no": False}


def parse_switch(value: str) -> bool:
    try:
        return _ON[value.strip().lower()]
    except KeyError:
        raise BadInput(f"bad switch value {value!r}: use on or off") from None


def _read_json(home: Home, path_name: str, data: bytes | None) -> dict[str, Any]:
    if data is None:
        return {}
    try:
        value = json.loads(data)
    except (ValueError, RecursionError) as e:
        logger.warning("%s is not valid JSON (%s); using defaults", path_name, e)
        return {}
    if not isinstance(value, dict):
        logger.warning("%s does not hold a JSON object; using defaults", path_name)
        return {}
    return value


def read_config(home: Home) -> dict[str, Any]:
    """``<home>/config.json`` as a dict ({} when missing or unreadable)."""
    ft = read_file(home.config_file)
    return _read_json(home, "config.json", ft.text.encode("utf-8") if ft and ft.valid else None)


def write_config(home: Home, config: dict[str, Any]) -> None:
    atomic_write(home.config_file, (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def auto_recall(home: Home) -> bool:
    features = read_config(home).get("features")
    if isinstance(features, dict) and features.get("autoRecall") is False:
        return False
    return True


def tidy_hour(home: Home) -> int:
    mem = read_config(home).get("memory")
    if isinstance(mem, dict):
        hour = mem.get("tidyHour")
        if isinstance(hour, int) and not isinstance(hour, bool) and 0 <= hour <= 23:
            return hour
    return DEFAULT_TIDY_HOUR


@dataclass(frozen=True)
class BotSettings:
    memory: bool = True
    upkeep: bool = True
    helper: bool = True

    def as_dict(self) -> dict[str, bool]:
        return {"memory": self.memory, "upkeep": self.upkeep, "helper": self.helper}


def bot_settings(home: Home, bot: str) -> BotSettings:
    ft = read_file(home.settings_file(bot), home.root)
    data = _read_json(home, f"settings/{bot}.json", ft.text.encode("utf-8") if ft and ft.valid else None)
    values = {k: data[k] for k in SWITCHES if isinstance(data.get(k), bool)}
    return BotSettings(**values)


def set_bot_setting(home: Home, bot: str, key: str, value: bool) -> BotSettings:
    if key not in SWITCHES:
        raise BadInput(f"unknown setting {key!r}: use one of {', '.join(SWITCHES)}")
    current = bot_settings(home, bot).as_dict()
    current[key] = value
    atomic_write(home.settings_file(bot), (json.dumps(current, indent=2) + "\n").encode("utf-8"), home.root)
    return BotSettings(**current)
