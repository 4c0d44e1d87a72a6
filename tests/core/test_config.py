from __future__ import annotations

import json

import pytest

from botmemory.core import config
from botmemory.core.errors import BadInput

from .conftest import BOT


def test_defaults(mem):
    s = config.bot_settings(mem.home, BOT)
    assert (s.memory, s.upkeep, s.helper) == (True, True, True)
    assert config.auto_recall(mem.home) and config.tidy_hour(mem.home) == 3


def test_switch_round_trip(mem):
    config.set_bot_setting(mem.home, BOT, "upkeep", False)
    assert config.bot_settings(mem.home, BOT).upkeep is False
    assert json.loads(mem.home.settings_file(BOT).read_text())["upkeep"] is False
    with pytest.raises(BadInput):
        config.set_bot_setting(mem.home, BOT, "colour", True)
    with pytest.raises(BadInput):
        config.parse_switch("maybe")


def test_config_json_keys_and_bad_files(mem):
    mem.home.config_file.write_text(json.dumps({"features": {"autoRecall": False}, "memory": {"tidyHour": 5}}))
    assert not config.auto_recall(mem.home) and config.tidy_hour(mem.home) == 5
    mem.home.config_file.write_text('{"memory": {"tidyHour": 99}}')
    assert config.tidy_hour(mem.home) == 3
    mem.home.config_file.write_text("{not json")
    assert config.auto_recall(mem.home) and config.tidy_hour(mem.home) == 3
    mem.home.settings_file(BOT).parent.mkdir(parents=True)
    mem.home.settings_file(BOT).write_text("[1, 2]")
    assert config.bot_settings(mem.home, BOT).memory is True
