from __future__ import annotations

import json

import pytest

from botmemory.core.base.errors import BadInput
from botmemory.core.disk import config

from ..conftest import BOT


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


# ----- the config.json schema (the desktop's Settings dialog calls these)


@pytest.mark.parametrize("value, hour", [(0, 0), (23, 23), ("7", 7), (" 5 ", 5), ("03", 3)])
def test_check_tidy_hour_accepts_whole_hours(value, hour):
    assert config.check_tidy_hour(value) == hour


@pytest.mark.parametrize("value", [-1, 24, "24", "3.5", "", True, None, 3.0, "٣"])
def test_check_tidy_hour_refuses_the_rest(value):
    with pytest.raises(BadInput, match="whole hour from 0 to 23"):
        config.check_tidy_hour(value)


def test_helper_instance_and_model_checks():
    assert config.check_helper_instance("  openai ") == "openai"
    with pytest.raises(BadInput, match="id of a connected instance"):
        config.check_helper_instance("has space")
    assert config.check_helper_model(" llama3.1:8b ", "ollama") == "llama3.1:8b"
    with pytest.raises(BadInput, match="needs a helper instance"):
        config.check_helper_model("m", "")


def test_config_values_are_what_a_server_would_use_and_what_core_reads(mem):
    assert config.config_values({}) == config.ConfigValues("", "", 3, True)
    odd = {"memory": {"tidyHour": 99}, "features": {"autoRecall": "no"}, "helper": "x"}
    assert config.config_values(odd) == config.ConfigValues()
    good = {"memory": {"tidyHour": 5}, "features": {"autoRecall": False}, "helper": {"instanceId": " a ", "model": "m"}}
    assert config.config_values(good) == config.ConfigValues("a", "m", 5, False)
    config.write_config(mem.home, good)
    assert config.tidy_hour(mem.home) == 5 and config.auto_recall(mem.home) is False


def test_apply_config_keeps_every_other_key_and_refuses_a_broken_section(mem):
    values = config.ConfigValues("openai", "", 3, True)
    out = config.apply_config({"x": 1, "helper": {"model": "old", "baseUrl": "u"}}, values)
    assert out == {"x": 1, "helper": {"instanceId": "openai", "baseUrl": "u"}}
    assert config.apply_config({}, config.ConfigValues()) == {}
    assert config.apply_config({"helper": {"instanceId": "a"}}, config.ConfigValues()) == {}
    with pytest.raises(BadInput, match="will not overwrite it"):
        config.apply_config({"memory": 3}, values)


@pytest.mark.parametrize("data, why", [(b"{not json", "not valid JSON"), (b"[1]", "does not hold a JSON object"),
                                       (b'{"x": "\xff"}', "not UTF-8")])
def test_read_config_strict_refuses_what_it_could_not_keep(mem, data, why):
    assert config.read_config_strict(mem.home) == {}
    mem.home.config_file.write_bytes(data)
    with pytest.raises(BadInput, match=why):
        config.read_config_strict(mem.home)
    assert config.read_config(mem.home) == {}
