"""Settings: the home's ``config.json`` (shared with a running bot server) and per-bot switches.

``config.json`` keys owned here (docs/RULES.md "Settings"): ``features.autoRecall``,
``memory.tidyHour``, ``helper.instanceId`` / ``helper.model`` — their checks
(:func:`check_tidy_hour`, :func:`check_helper_instance`, :func:`check_helper_model`),
the values a bot server would use (:func:`config_values`) and how a change is
written keeping every other key (:func:`apply_config`); the desktop's Settings
dialog calls these. Per-bot switches (``memory``, ``upkeep``, ``helper``) live in
``<home>/settings/<bot>.json``. Both files are read fresh on every call, so a
change applies without a restart.
"""
from __future__ import annotations

import os
import re

from ..base.errors import BadInput, BotMemoryError
from ..base.log import get_logger
from ..base.record import record
from .paths import Home
from .safeio import atomic_write, read_file

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:
    from typing import Any

logger = get_logger(__name__)

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
    import json  # on first use: a process that reads no JSON file never loads it
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
    import json  # on first use: a process that reads no JSON file never loads it
    atomic_write(home.config_file, (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


DEFAULT_JOURNAL_KEEP_MB = 64
"""``memory.journalKeepMB``: the journal keeps a change's earlier text up to this many megabytes (so that undo
can bring it back); a change of a larger file is warned about before it is made and cannot be undone."""


_keep_seen: dict[str, tuple[tuple[int, int, int, int], int]] = {}


def journal_keep_bytes(home: Home) -> int:
    """``memory.journalKeepMB`` of ``config.json`` in bytes (a number above 0; else the default, 64 MB).
    Every write asks: the file is read again only when its status changed (a missing file: the default)."""
    name = str(home.config_file)
    try:
        st: os.stat_result | None = os.stat(name, follow_symlinks=False)
    except FileNotFoundError:
        return int(DEFAULT_JOURNAL_KEEP_MB * 1024 * 1024)
    except OSError:
        st = None
    sig = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) if st is not None else None
    seen = _keep_seen.get(name)
    if sig is not None and seen is not None and seen[0] == sig:
        return seen[1]
    memory = _section(read_config(home), "memory")
    mb = memory.get("journalKeepMB")
    if isinstance(mb, bool) or not isinstance(mb, (int, float)) or not mb > 0 or mb != mb:
        mb = DEFAULT_JOURNAL_KEEP_MB
    got = int(min(mb, 1 << 20) * 1024 * 1024)
    if sig is not None:
        _keep_seen[name] = (sig, got)
    return got


def auto_recall(home: Home) -> bool:
    return config_values(read_config(home)).auto_recall


def tidy_hour(home: Home) -> int:
    return config_values(read_config(home)).tidy_hour


# ----- the config.json schema: checks, the values in force, writing a change

_INSTANCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}")
_SECTIONS = ("features", "memory", "helper")
_MISSING = object()


@record(frozen=True)
class ConfigValues:
    """The ``config.json`` values botmemory and a bot server use ("" helper instance: no helper)."""

    helper_instance: str = ""
    helper_model: str = ""
    tidy_hour: int = DEFAULT_TIDY_HOUR
    auto_recall: bool = True


def check_tidy_hour(value: object) -> int:
    """A whole hour 0–23, from an int or its digits; else :class:`BadInput` with the sentence to show."""
    message = "The nightly tidy-up hour must be a whole hour from 0 to 23."
    if isinstance(value, bool):
        raise BadInput(message)
    if isinstance(value, int):
        hour = value
    elif isinstance(value, str) and value.strip().isdigit() and value.strip().isascii():
        hour = int(value.strip())
    else:
        raise BadInput(message)
    if not 0 <= hour <= 23:
        raise BadInput(message)
    return hour


def check_helper_instance(value: str) -> str:
    """The helper's instance id, stripped; "" switches the helper off."""
    text = value.strip()
    if text and not _INSTANCE.fullmatch(text):
        raise BadInput(
            "The helper instance is the id of a connected instance, such as claude, claudeApi, openai "
            "or openrouter: letters, digits, '.', '_' or '-', at most 64, no spaces.")
    return text


def check_helper_model(value: str, instance: str) -> str:
    """The helper's model, stripped ("" for none); it needs an instance."""
    text = value.strip()
    if not text:
        return ""
    if not instance:
        raise BadInput("A model needs a helper instance: fill in the instance, or leave both empty "
                       "to switch the helper off.")
    if not _MODEL.fullmatch(text):
        raise BadInput("The model is one name without spaces, such as claude-haiku-4-5 or "
                       "openai/gpt-4o-mini (at most 200 characters).")
    return text


def _section(config: dict[str, Any], key: str) -> dict[str, Any]:
    value = config.get(key)
    return value if isinstance(value, dict) else {}


def config_values(config: dict[str, Any]) -> ConfigValues:
    """The values a bot server would use for *config* (a broken or missing key: its default)."""
    helper, memory, features = (_section(config, k) for k in ("helper", "memory", "features"))
    hour = memory.get("tidyHour")
    tidy = hour if isinstance(hour, int) and not isinstance(hour, bool) and 0 <= hour <= 23 else DEFAULT_TIDY_HOUR
    instance, model = helper.get("instanceId"), helper.get("model")
    return ConfigValues(instance.strip() if isinstance(instance, str) else "",
                        model.strip() if isinstance(model, str) else "",
                        tidy, features.get("autoRecall") is not False)


def read_config_strict(home: Home) -> dict[str, Any]:
    """``config.json`` as a dict ({} when missing); :class:`BadInput` when it cannot be safely rewritten."""
    import json  # on first use: a process that reads no JSON file never loads it
    try:
        ft = read_file(home.config_file)
    except BotMemoryError as e:
        raise BadInput(f"{home.config_file} cannot be read: {e}") from None
    except OSError as e:
        raise BadInput(f"{home.config_file} cannot be read: {e.strerror or e}.") from None
    if ft is None:
        return {}
    keep = "Fix it in an editor first; botmemory will not overwrite it."
    if not ft.valid:
        raise BadInput(f"{home.config_file} is not UTF-8 text. {keep}")
    try:
        value = json.loads(ft.text)
    except (ValueError, RecursionError) as e:
        raise BadInput(f"{home.config_file} is not valid JSON ({e}). {keep}") from None
    if not isinstance(value, dict):
        raise BadInput(f"{home.config_file} does not hold a JSON object. {keep}")
    return value


def _put(config: dict[str, Any], section: str, key: str, value: object, default: object) -> None:
    """Set ``config[section][key]`` unless the file already says exactly that (or says nothing and *value* is the default)."""
    part = config.get(section)
    current = part.get(key, _MISSING) if isinstance(part, dict) else _MISSING
    if current is _MISSING and value == default:
        return
    if current is not _MISSING and type(current) is type(value) and current == value:
        return
    if not isinstance(part, dict):
        part = config[section] = {}
    part[key] = value


def apply_config(config: dict[str, Any], values: ConfigValues) -> dict[str, Any]:
    """A copy of *config* with *values* set; every other key kept as it was (:class:`BadInput` when a
    section is not an object: botmemory will not overwrite it)."""
    import copy
    import json  # on first use: a process that reads no JSON file never loads it

    out = copy.deepcopy(config)
    for key in _SECTIONS:
        if key in out and not isinstance(out[key], dict):
            raise BadInput(f'config.json has "{key}" set to {json.dumps(out[key])[:60]}, not an object; '
                           "fix it in an editor first, botmemory will not overwrite it.")
    _put(out, "features", "autoRecall", values.auto_recall, True)
    _put(out, "memory", "tidyHour", values.tidy_hour, DEFAULT_TIDY_HOUR)
    helper = out.get("helper")
    if values.helper_instance:
        _put(out, "helper", "instanceId", values.helper_instance, None)
        helper = out["helper"]
        if values.helper_model:
            _put(out, "helper", "model", values.helper_model, None)
        else:
            helper.pop("model", None)
    elif isinstance(helper, dict):
        helper.pop("instanceId", None)
        helper.pop("model", None)
        if not helper:
            del out["helper"]
    return out


@record(frozen=True)
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
    import json  # on first use: a process that reads no JSON file never loads it
    if key not in SWITCHES:
        raise BadInput(f"unknown setting {key!r}: use one of {', '.join(SWITCHES)}")
    current = bot_settings(home, bot).as_dict()
    current[key] = value
    atomic_write(home.settings_file(bot), (json.dumps(current, indent=2) + "\n").encode("utf-8"), home.root)
    return BotSettings(**current)
