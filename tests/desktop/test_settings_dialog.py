"""Settings: validation, the round trip through config.json, the keyring, and the dialog."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.errors
import pytest

from botmemory.core.disk import config as core_config
from botmemory.core.disk.paths import Home
from botmemory.desktop import keystore
from botmemory.desktop import settings_dialog as sd
from botmemory.desktop.autostart import XdgAutostart
from botmemory.desktop.settings_dialog import Form, Invalid, Settings
from tests.fakes import MemoryKeyring

UNKNOWN: dict[str, Any] = {
    "instances": {"claude": {"engine": "claude"}},
    "features": {"roomMemoryCapture": True, "somethingNew": [1, 2, {"deep": None}]},
    "memory": {"captureQuietMs": 120000},
    "helper": {"instanceId": "claude", "baseUrl": "http://127.0.0.1:9/v1", "timeoutSeconds": 5},
    "ünïcode": "kept as is",
}


@pytest.fixture
def home(tmp_path: Path) -> Home:
    root = tmp_path / "omb"
    (root / "workspaces" / "scout").mkdir(parents=True)
    (root / "workspaces" / "ledger").mkdir()
    (root / "config.json").write_text(json.dumps(UNKNOWN, indent=4), encoding="utf-8")
    return Home(root)


@pytest.fixture
def kr() -> MemoryKeyring:
    return MemoryKeyring()


@pytest.fixture
def start(tmp_path: Path) -> XdgAutostart:
    return XdgAutostart(tmp_path / "xdg" / "autostart")


@pytest.fixture
def ui_path(tmp_path: Path) -> Path:
    return tmp_path / "ui" / "settings.json"


def settings(home: Home, **kw: Any) -> Settings:
    values: dict[str, Any] = {"home": home.root, "start_at_login": False, "helper_instance": "claude",
                              "helper_model": "", "api_key": "", "tidy_hour": 3, "auto_recall": True}
    values.update(kw)
    return Settings(**values)


# --- validation ---------------------------------------------------------------------------

@pytest.mark.parametrize("value, hour", [(0, 0), (23, 23), ("7", 7), (" 5 ", 5), ("03", 3)])
def test_tidy_hour_accepts_whole_hours(value: object, hour: int) -> None:
    assert sd.parse_tidy_hour(value) == hour


@pytest.mark.parametrize("value", [-1, 24, "24", "3.5", "", "abc", True, None, 3.0, "٣", "-1"])
def test_tidy_hour_refuses_anything_else(value: object) -> None:
    with pytest.raises(ValueError, match="whole hour from 0 to 23"):
        sd.parse_tidy_hour(value)


@pytest.mark.parametrize("value", ["claude", "claudeApi", "openrouter", "my-ollama.2", "  openai  ", ""])
def test_instance_ids(value: str) -> None:
    assert sd.check_instance(value) == value.strip()


@pytest.mark.parametrize("value", ["has space", ".hidden", "a/b", "x" * 65, "ünï"])
def test_bad_instance_ids(value: str) -> None:
    with pytest.raises(ValueError, match="id of a connected instance"):
        sd.check_instance(value)


def test_model_needs_an_instance_and_no_spaces() -> None:
    assert sd.check_model("openai/gpt-4o-mini", "openrouter") == "openai/gpt-4o-mini"
    assert sd.check_model("llama3.1:8b", "ollama") == "llama3.1:8b"
    assert sd.check_model("  ", "") == ""
    with pytest.raises(ValueError, match="needs a helper instance"):
        sd.check_model("claude-haiku-4-5", "")
    with pytest.raises(ValueError, match="without spaces"):
        sd.check_model("claude haiku", "claude")


def test_api_key_checks() -> None:
    assert sd.check_api_key("", "") == ""
    assert sd.check_api_key(" sk-abc \n", "openai") == "sk-abc"
    with pytest.raises(ValueError, match="fill in the instance first"):
        sd.check_api_key("sk-abc", "")
    with pytest.raises(ValueError, match="without spaces"):
        sd.check_api_key("sk abc", "openai")


def test_home_check_says_plainly_what_is_wrong(tmp_path: Path, home: Home) -> None:
    assert sd.check_home(home.root) == sd.HomeCheck(True, "An OpenMausBot home with 2 bots: ledger, scout.")
    only_config = tmp_path / "only-config"
    only_config.mkdir()
    (only_config / "config.json").write_text("{}")
    assert sd.check_home(only_config) == sd.HomeCheck(True, "An OpenMausBot home with no bots yet.")

    empty = tmp_path / "Documents"
    empty.mkdir()
    check = sd.check_home(empty)
    assert not check.ok
    assert check.message.startswith(f"{empty} does not look like an OpenMausBot home: it has neither "
                                    "a workspaces folder nor a config.json.")
    assert sd.check_home(tmp_path / "nope") == sd.HomeCheck(False, f"{tmp_path / 'nope'} does not exist.")
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert sd.check_home(a_file) == sd.HomeCheck(False, f"{a_file} is a file, not a folder.")
    assert not sd.check_home("  ").ok


def test_validate_names_every_problem(tmp_path: Path) -> None:
    with pytest.raises(Invalid) as caught:
        sd.validate(Form(home=str(tmp_path / "missing"), helper_instance="bad id", helper_model="x y",
                         api_key="a b", tidy_hour="25"))
    assert set(caught.value.problems) == {sd.HOME, sd.INSTANCE, sd.MODEL, sd.API_KEY, sd.TIDY_HOUR}
    assert "without spaces" in caught.value.problems[sd.MODEL]
    # The model is refused for needing an instance only when the instance itself was fine:
    with pytest.raises(Invalid) as caught:
        sd.validate(Form(home=str(tmp_path / "missing"), helper_model="m"))
    assert caught.value.problems[sd.MODEL].startswith("A model needs a helper instance")


def test_validate_returns_clean_values(home: Home) -> None:
    got = sd.validate(Form(home=f" {home.root} ", start_at_login=True, helper_instance=" openai ",
                           helper_model=" gpt-4o-mini ", api_key=" sk-1 ", tidy_hour="4", auto_recall=False))
    assert got == Settings(home.root, True, "openai", "gpt-4o-mini", "sk-1", 4, False)


# --- config.json --------------------------------------------------------------------------

def test_round_trip_keeps_unknown_keys(home: Home, kr: MemoryKeyring, start: XdgAutostart, ui_path: Path) -> None:
    s = settings(home, helper_instance="openrouter", helper_model="openai/gpt-4o-mini", tidy_hour=5,
                 auto_recall=False)
    sd.save(s, start, backend=kr, ui_path=ui_path)

    written = json.loads(home.config_file.read_text(encoding="utf-8"))
    expected = json.loads(json.dumps(UNKNOWN))
    expected["features"]["autoRecall"] = False
    expected["memory"]["tidyHour"] = 5
    expected["helper"].update(instanceId="openrouter", model="openai/gpt-4o-mini")
    assert written == expected
    # What a bot server (and core) reads back from the same file:
    assert core_config.tidy_hour(home) == 5
    assert core_config.auto_recall(home) is False
    assert sd.form_values(sd.read_config_strict(home)) == {
        sd.INSTANCE: "openrouter", sd.MODEL: "openai/gpt-4o-mini", sd.TIDY_HOUR: 5, sd.RECALL: False}
    assert "home" not in written  # the home choice is the app's own setting


def test_core_helper_reads_what_settings_wrote(home: Home, kr: MemoryKeyring, start: XdgAutostart,
                                               ui_path: Path) -> None:
    helper = pytest.importorskip("botmemory.core.upkeep.helper")
    sd.save(settings(home, helper_instance="openai", helper_model="gpt-4o-mini", api_key="sk-xyz"),
            start, backend=kr, ui_path=ui_path)
    cfg = helper.read_config(home)
    assert (cfg.instance_id, cfg.model) == ("openai", "gpt-4o-mini")
    previous = keyring.get_keyring()
    keyring.set_keyring(kr)
    try:
        assert helper.api_key("openai") == "sk-xyz"
    finally:
        keyring.set_keyring(previous)
    assert keystore.KEYRING_SERVICE == helper.KEYRING_SERVICE


def test_unchanged_settings_write_nothing(tmp_path: Path, kr: MemoryKeyring, start: XdgAutostart, ui_path: Path) -> None:
    root = tmp_path / "fresh"
    (root / "workspaces").mkdir(parents=True)
    saved = sd.save(settings(Home(root), helper_instance=""), start, backend=kr, ui_path=ui_path)
    assert not (root / "config.json").exists()
    assert saved.changed == ["home folder"]


def test_switching_the_helper_off_keeps_its_other_keys(home: Home, kr: MemoryKeyring, start: XdgAutostart,
                                                      ui_path: Path) -> None:
    sd.save(settings(home, helper_instance="", helper_model=""), start, backend=kr, ui_path=ui_path)
    written = json.loads(home.config_file.read_text(encoding="utf-8"))
    assert written["helper"] == {"baseUrl": "http://127.0.0.1:9/v1", "timeoutSeconds": 5}


def test_switching_a_bare_helper_off_removes_the_section(tmp_path: Path) -> None:
    out = sd.apply_settings({"helper": {"instanceId": "claude", "model": "m"}, "x": 1},
                            settings(Home(tmp_path), helper_instance=""))
    assert out == {"x": 1}


def test_apply_only_touches_what_changed(tmp_path: Path) -> None:
    s = settings(Home(tmp_path), helper_instance="")
    assert sd.apply_settings({}, s) == {}
    assert sd.apply_settings({"memory": {"tidyHour": 3}}, s) == {"memory": {"tidyHour": 3}}
    # a broken value is replaced by the one chosen, even when that is the default
    assert sd.apply_settings({"memory": {"tidyHour": "3"}}, s) == {"memory": {"tidyHour": 3}}
    assert sd.apply_settings({"features": {"autoRecall": False}}, s) == {"features": {"autoRecall": True}}


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"features": "on"}'])
def test_a_config_that_cannot_be_kept_is_never_overwritten(home: Home, kr: MemoryKeyring, start: XdgAutostart,
                                                           ui_path: Path, text: str) -> None:
    home.config_file.write_text(text, encoding="utf-8")
    with pytest.raises(Invalid) as caught:
        sd.save(settings(home, tidy_hour=6, api_key="sk-1", start_at_login=True), start, backend=kr,
                ui_path=ui_path)
    assert "botmemory will not overwrite it" in caught.value.problems[sd.CONFIG]
    assert home.config_file.read_text(encoding="utf-8") == text
    assert kr.store == {}
    assert not start.is_enabled()
    assert not ui_path.exists()


def test_a_config_that_is_not_utf8_is_never_overwritten(home: Home, kr: MemoryKeyring, start: XdgAutostart,
                                                        ui_path: Path) -> None:
    home.config_file.write_bytes(b'{"x": "\xff"}')
    with pytest.raises(Invalid, match="not UTF-8"):
        sd.save(settings(home), start, backend=kr, ui_path=ui_path)
    assert home.config_file.read_bytes() == b'{"x": "\xff"}'


def test_form_values_use_what_a_server_would(tmp_path: Path) -> None:
    assert sd.form_values({}) == {sd.INSTANCE: "", sd.MODEL: "", sd.TIDY_HOUR: 3, sd.RECALL: True}
    assert sd.form_values({"memory": {"tidyHour": 99}, "features": {"autoRecall": "no"}, "helper": "x"}) == {
        sd.INSTANCE: "", sd.MODEL: "", sd.TIDY_HOUR: 3, sd.RECALL: True}


# --- the home choice ----------------------------------------------------------------------

def test_home_choice_is_kept_outside_config_json(tmp_path: Path, ui_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert sd.saved_home(ui_path) is None
    ui_path.parent.mkdir(parents=True)
    ui_path.write_text('{"window": {"w": 640}}')
    sd.save_home(tmp_path / "omb", ui_path)
    assert json.loads(ui_path.read_text()) == {"window": {"w": 640}, "home": str(tmp_path / "omb")}
    assert sd.saved_home(ui_path) == tmp_path / "omb"

    monkeypatch.setenv("OPENMAUSBOT_HOME", str(tmp_path / "env"))
    assert sd.app_home(str(tmp_path / "cli"), ui_path).root == tmp_path / "cli"
    assert sd.app_home(None, ui_path).root == tmp_path / "omb"
    assert sd.app_home(None, tmp_path / "none.json").root == tmp_path / "env"


def test_default_ui_settings_path_is_platformdirs_config_dir() -> None:
    import platformdirs

    assert sd.ui_settings_path() == Path(platformdirs.user_config_dir("botmemory", appauthor=False)) / "settings.json"


# --- the keyring --------------------------------------------------------------------------

def test_no_keyring_says_what_that_means() -> None:
    fail = keyring.backends.fail.Keyring()
    status = keystore.status(fail)
    assert not status.available
    assert status.message == keystore.NO_KEYRING
    for phrase in ("No keyring is available on this computer",
                   "never writes the key to config.json or any other file",
                   "is not used",
                   "needs no key and still works"):
        assert phrase in status.message
    with pytest.raises(keystore.KeyringUnavailable) as caught:
        keystore.store_key("openai", "sk-1", fail)
    assert str(caught.value) == keystore.NO_KEYRING
    assert keystore.has_key("openai", fail) is None


def test_null_and_empty_chainer_backends_are_not_a_keyring() -> None:
    import keyring.backends.chainer
    import keyring.backends.null

    assert not keystore.status(keyring.backends.null.Keyring()).available
    chainer = keyring.backends.chainer.ChainerBackend()
    if not chainer.backends:
        assert not keystore.status(chainer).available


def test_dict_keyring_stores_reads_and_forgets(kr: MemoryKeyring) -> None:
    status = keystore.status(kr)
    assert status.available
    assert status.message == f"API keys are kept in the system keyring ({kr.name})."
    assert keystore.has_key("openai", kr) is False
    keystore.store_key("openai", "sk-1", kr)
    assert kr.store == {("botmemory", "openai"): "sk-1"}
    assert keystore.has_key("openai", kr) is True
    assert keystore.delete_key("openai", kr) is True
    assert keystore.delete_key("openai", kr) is False


def test_saving_a_key_without_a_keyring_saves_nothing(home: Home, start: XdgAutostart, ui_path: Path) -> None:
    before = home.config_file.read_bytes()
    with pytest.raises(Invalid) as caught:
        sd.save(settings(home, api_key="sk-1", tidy_hour=9), start, backend=keyring.backends.fail.Keyring(),
                ui_path=ui_path)
    assert caught.value.problems[sd.API_KEY] == keystore.NO_KEYRING
    assert home.config_file.read_bytes() == before


def test_the_key_is_never_written_to_a_file(home: Home, kr: MemoryKeyring, start: XdgAutostart, ui_path: Path) -> None:
    sd.save(settings(home, helper_instance="openai", api_key="sk-SECRET-123"), start, backend=kr, ui_path=ui_path)
    for path in [home.config_file, ui_path]:
        assert "sk-SECRET-123" not in path.read_text(encoding="utf-8")


# --- the dialog ---------------------------------------------------------------------------

@pytest.fixture
def dialog_factory(qtbot: Any, start: XdgAutostart, ui_path: Path) -> Iterator[Any]:
    made: list[sd.SettingsDialog] = []

    def make(home: Home, backend: keyring.backend.KeyringBackend) -> sd.SettingsDialog:
        dlg = sd.SettingsDialog(home, autostart=start, keyring_backend=backend, ui_path=ui_path,
                                command=["/opt/botmemory/botmemory-tray"])
        qtbot.addWidget(dlg)
        with qtbot.waitSignal(dlg.loaded, timeout=10_000):
            pass
        made.append(dlg)
        return dlg

    yield make
    for dlg in made:
        dlg._worker.wait()


def test_dialog_shows_the_config(dialog_factory: Any, home: Home, kr: MemoryKeyring) -> None:
    kr.set_password("botmemory", "claude", "sk-old")
    dlg = dialog_factory(home, kr)
    assert dlg.home_edit.text() == str(home.root)
    assert dlg.home_status.text() == "An OpenMausBot home with 2 bots: ledger, scout."
    assert dlg.instance_edit.text() == "claude"
    assert dlg.model_edit.text() == ""
    assert dlg.tidy_spin.value() == 3
    assert dlg.recall_check.isChecked()
    assert not dlg.login_check.isChecked()
    assert dlg.key_status.text().startswith("A key is stored for this instance.")
    assert dlg.key_edit.isEnabled()
    assert dlg.forget_key_button.isEnabled()


def test_dialog_saves_every_setting(qtbot: Any, dialog_factory: Any, home: Home, kr: MemoryKeyring,
                                    start: XdgAutostart, ui_path: Path) -> None:
    dlg = dialog_factory(home, kr)
    dlg.instance_edit.setText("openai")
    dlg.model_edit.setText("gpt-4o-mini")
    dlg.key_edit.setText("sk-new")
    dlg.tidy_spin.setValue(22)
    dlg.recall_check.setChecked(False)
    dlg.login_check.setChecked(True)
    with qtbot.waitSignal(dlg.saved, timeout=10_000) as blocker:
        dlg.save_button.click()
    assert blocker.args[0] == Settings(home.root, True, "openai", "gpt-4o-mini", "sk-new", 22, False)

    written = json.loads(home.config_file.read_text(encoding="utf-8"))
    assert written["helper"] == {"instanceId": "openai", "baseUrl": "http://127.0.0.1:9/v1", "timeoutSeconds": 5,
                                 "model": "gpt-4o-mini"}
    assert written["memory"] == {"captureQuietMs": 120000, "tidyHour": 22}
    assert written["features"]["autoRecall"] is False
    assert written["instances"] == UNKNOWN["instances"]
    assert kr.store[("botmemory", "openai")] == "sk-new"
    assert start.is_enabled()
    assert "Exec=/opt/botmemory/botmemory-tray" in start.path.read_text()
    assert sd.saved_home(ui_path) == home.root
    assert dlg.result() == sd.QDialog.DialogCode.Accepted


def test_dialog_refuses_bad_values_and_saves_nothing(qtbot: Any, dialog_factory: Any, home: Home,
                                                     kr: MemoryKeyring, start: XdgAutostart, ui_path: Path) -> None:
    before = home.config_file.read_bytes()
    dlg = dialog_factory(home, kr)
    dlg.instance_edit.setText("not an id")
    dlg.tidy_spin.setValue(1)
    dlg.login_check.setChecked(True)
    with qtbot.waitSignal(dlg.failed, timeout=10_000) as blocker:
        dlg.save_button.click()
    assert "id of a connected instance" in blocker.args[0]
    assert not dlg.error_label.isHidden()
    assert "id of a connected instance" in dlg.error_label.text()
    assert dlg.save_button.isEnabled()  # the person can fix it and try again
    assert home.config_file.read_bytes() == before
    assert not start.is_enabled()
    assert not ui_path.exists()
    assert dlg.isVisible() or dlg.result() != sd.QDialog.DialogCode.Accepted


def test_dialog_says_when_a_folder_is_not_a_home(qtbot: Any, dialog_factory: Any, home: Home, kr: MemoryKeyring,
                                                 tmp_path: Path, ui_path: Path) -> None:
    dlg = dialog_factory(home, kr)
    elsewhere = tmp_path / "Documents"
    elsewhere.mkdir()
    dlg.home_edit.setText(str(elsewhere))
    with qtbot.waitSignal(dlg.home_checked, timeout=10_000) as blocker:
        dlg.home_edit.editingFinished.emit()
    assert not blocker.args[0].ok
    assert "does not look like an OpenMausBot home" in dlg.home_status.text()
    with qtbot.waitSignal(dlg.failed, timeout=10_000):
        dlg.save_button.click()
    assert not (elsewhere / "config.json").exists()
    assert not ui_path.exists()


def test_dialog_switches_to_another_home(qtbot: Any, dialog_factory: Any, home: Home, kr: MemoryKeyring,
                                         tmp_path: Path, ui_path: Path) -> None:
    other = tmp_path / "other-home"
    (other / "workspaces" / "atlas").mkdir(parents=True)
    (other / "config.json").write_text(json.dumps({"memory": {"tidyHour": 4}, "features": {"autoRecall": False}}))
    dlg = dialog_factory(home, kr)
    dlg.home_edit.setText(str(other))
    with qtbot.waitSignal(dlg.home_checked, timeout=10_000):
        dlg.home_edit.editingFinished.emit()
    assert dlg.tidy_spin.value() == 4
    assert not dlg.recall_check.isChecked()
    assert dlg.instance_edit.text() == ""
    with qtbot.waitSignals([dlg.saved, dlg.home_changed], timeout=10_000):
        dlg.save_button.click()
    assert sd.saved_home(ui_path) == other


def test_dialog_without_a_keyring_says_so_and_still_saves(qtbot: Any, dialog_factory: Any, home: Home) -> None:
    dlg = dialog_factory(home, keyring.backends.fail.Keyring())
    assert dlg.key_status.text() == keystore.NO_KEYRING
    assert not dlg.key_edit.isEnabled()
    assert not dlg.forget_key_button.isEnabled()
    dlg.tidy_spin.setValue(1)
    with qtbot.waitSignal(dlg.saved, timeout=10_000):
        dlg.save_button.click()
    assert core_config.tidy_hour(home) == 1


def test_dialog_forgets_a_key(qtbot: Any, dialog_factory: Any, home: Home, kr: MemoryKeyring) -> None:
    kr.set_password("botmemory", "claude", "sk-old")
    dlg = dialog_factory(home, kr)
    with qtbot.waitSignal(dlg.key_checked, timeout=10_000):
        dlg.forget_key_button.click()
    assert kr.store == {}
    assert dlg.key_status.text().startswith("No key is stored for this instance.")
    assert not dlg.forget_key_button.isEnabled()


def test_dialog_checks_the_key_of_a_newly_typed_instance(qtbot: Any, dialog_factory: Any, home: Home,
                                                         kr: MemoryKeyring) -> None:
    kr.set_password("botmemory", "openrouter", "sk-or")
    dlg = dialog_factory(home, kr)
    assert dlg.key_status.text().startswith("No key is stored")
    dlg.instance_edit.setText("openrouter")
    with qtbot.waitSignal(dlg.key_checked, timeout=10_000):
        dlg.instance_edit.editingFinished.emit()
    assert dlg.key_status.text().startswith("A key is stored for this instance.")


def test_dialog_shows_a_broken_config_and_refuses_to_save(qtbot: Any, dialog_factory: Any, home: Home,
                                                          kr: MemoryKeyring) -> None:
    home.config_file.write_text("{oops", encoding="utf-8")
    dlg = dialog_factory(home, kr)
    assert "is not valid JSON" in dlg.error_label.text()
    with qtbot.waitSignal(dlg.failed, timeout=10_000):
        dlg.save_button.click()
    assert home.config_file.read_text(encoding="utf-8") == "{oops"


def _shown_without_keyring(qtbot: Any, home: Home, start: XdgAutostart, ui_path: Path) -> sd.SettingsDialog:
    """The dialog shown before its values arrive, as the app does, with no keyring; returned once they have."""
    dlg = sd.SettingsDialog(home, autostart=start, keyring_backend=keyring.backends.fail.Keyring(),
                            ui_path=ui_path)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    with qtbot.waitSignal(dlg.loaded, timeout=10_000):
        pass
    return dlg


def test_dialog_is_tall_enough_for_every_sentence(qtbot: Any, home: Home, start: XdgAutostart,
                                                  ui_path: Path) -> None:
    # the longest text it shows is the no-keyring one
    dlg = _shown_without_keyring(qtbot, home, start, ui_path)
    assert dlg.height() >= dlg.heightForWidth(dlg.width())
    assert dlg.key_status.height() >= dlg.key_status.heightForWidth(dlg.key_status.width())
    dlg._worker.wait()


def test_dialog_fits_a_small_screen_with_save_in_reach(qtbot: Any, home: Home, start: XdgAutostart,
                                                      ui_path: Path) -> None:
    """On a 768-pixel laptop screen the form scrolls; Save and Cancel stay on the screen."""
    dlg = _shown_without_keyring(qtbot, home, start, ui_path)
    screen = dlg.screen().availableGeometry()
    assert screen.height() < 954        # the offscreen screen is smaller than the whole form
    assert dlg.frameGeometry().height() <= screen.height() and screen.contains(dlg.frameGeometry())
    assert dlg.save_button.isVisible() and dlg.save_button.mapTo(dlg, dlg.save_button.rect().bottomLeft()).y() \
        <= dlg.height()
    dlg._worker.wait()


def test_a_home_that_only_tracks_agent_folders_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29, Broken 2: botmemory's own home for a Claude Code user is a home, named by what it tracks."""
    from botmemory.core.ops import Memory, track

    user = tmp_path / "user"
    for name in ("a", "b", "c", "d"):
        d = user / ".claude" / "projects" / f"-src-{name}" / "memory"
        d.mkdir(parents=True)
        (d / "MEMORY.md").write_text("- note\n")
    monkeypatch.setenv("HOME", str(user))
    mem = Memory.open(str(tmp_path / "own"))
    for name in ("a", "b", "c", "d"):
        track(mem, f"claude-src-{name}")
    check = sd.check_home(mem.home.root)
    assert check.ok and "tracks 4 folders" in check.message and "no bots" not in check.message


def test_the_mouse_wheel_scrolls_settings_and_changes_no_setting(qtbot: Any, dialog_factory: Any, home: Home,
                                                                 kr: MemoryKeyring) -> None:
    """Issue 29, Misleading 10: scrolling over the tidy hour once turned 3:00 into 0:00."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    dlg = dialog_factory(home, kr)
    dlg.resize(dlg.width(), 300)          # short enough that the form scrolls
    dlg.show()
    qtbot.waitExposed(dlg)
    bar = dlg.form_scroll.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum() // 2)
    dlg.form_scroll.ensureWidgetVisible(dlg.tidy_spin)
    dlg.save_button.setFocus()
    hour, scrolled = dlg.tidy_spin.value(), bar.value()
    pos = QPointF(dlg.tidy_spin.rect().center())
    for _ in range(3):
        event = QWheelEvent(pos, QPointF(dlg.tidy_spin.mapToGlobal(pos.toPoint())), QPoint(0, 0), QPoint(0, -120),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                            False)
        QApplication.sendEvent(dlg.tidy_spin, event)
    assert dlg.tidy_spin.value() == hour
    assert bar.value() != scrolled                     # the form scrolled instead
    dlg.activateWindow()
    dlg.tidy_spin.setFocus()                           # a field the person chose still takes the wheel
    qtbot.waitUntil(dlg.tidy_spin.hasFocus, timeout=5000)
    QApplication.sendEvent(dlg.tidy_spin, QWheelEvent(pos, QPointF(0, 0), QPoint(0, 0), QPoint(0, 120),
                                                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                                                      Qt.ScrollPhase.NoScrollPhase, False))
    assert dlg.tidy_spin.value() == hour + 1
