"""The Settings window, and the plain functions under it.

What it edits, and where each thing is kept:

- the home folder: the app's own UI setting, in ``settings.json`` under
  ``platformdirs.user_config_dir("botmemory")`` — never in ``config.json``;
- start at login: :mod:`botmemory.desktop.autostart`;
- the helper model (``helper.instanceId``, ``helper.model``), the nightly tidy
  hour (``memory.tidyHour``) and recall (``features.autoRecall``): the home's
  ``config.json``, the same keys a running bot server reads. Every other key
  in the file is kept as it was; a file that is not a JSON object is never
  overwritten;
- the helper's API key: the OS keyring (:mod:`botmemory.desktop.keystore`).

Validation is plain functions that raise :class:`Invalid` with one sentence per
field; nothing is written unless every value passed. The dialog only presents:
loading and saving run on the worker, never in a slot on the UI thread.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import keyring.backend
import platformdirs
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QPalette, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from botmemory.core.ops import (
    DEFAULT_TIDY_HOUR,
    BadInput,
    BotMemoryError,
    ConfigValues,
    Home,
    apply_config,
    atomic_write,
    check_helper_instance,
    check_helper_model,
    check_tidy_hour,
    config_values,
    describe_home,
    write_config,
)
from botmemory.core.ops import read_config_strict as core_read_config_strict

from . import autostart as autostart_mod
from . import keystore
from .agents_page import AgentsPage
from .look import FRAME_GUESS, ElidedLabel
from .wheel import no_wheel_unless_focused
from .worker import Worker

logger = logging.getLogger(__name__)

APP_NAME = "botmemory"
UI_SETTINGS_FILE = "settings.json"
MIN_WIDTH = 540
DEMO_NOTE = ("This is the demo: a temporary home deleted when Bot Memory quits. Settings here change only the "
             "demo's config.json; the home folder and start at login are chosen when you run Bot Memory "
             "without --demo.")

# Field names, as Invalid.problems uses them.
HOME, LOGIN, INSTANCE, MODEL, API_KEY, TIDY_HOUR, RECALL, CONFIG = (
    "home", "start_at_login", "helper_instance", "helper_model", "api_key", "tidy_hour", "auto_recall", "config")

MAX_KEY_CHARS = 4096


class Invalid(BotMemoryError, ValueError):
    """Values that were refused: ``problems`` maps each field to the sentence to show."""

    exit_code = 2

    def __init__(self, problems: dict[str, str]) -> None:
        super().__init__(" ".join(problems.values()))
        self.problems = problems


# --- the app's own UI setting: which home -------------------------------------------

def ui_settings_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / UI_SETTINGS_FILE


def read_ui_settings(path: Path | None = None) -> dict[str, Any]:
    target = path if path is not None else ui_settings_path()
    try:
        value = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        logger.warning("cannot read %s (%s); using defaults", target, e)
        return {}
    return value if isinstance(value, dict) else {}


def saved_home(path: Path | None = None) -> Path | None:
    """The home folder chosen in Settings, if any."""
    value = read_ui_settings(path).get("home")
    return Path(value) if isinstance(value, str) and value else None


def save_home(root: Path, path: Path | None = None) -> None:
    target = path if path is not None else ui_settings_path()
    data = read_ui_settings(target)
    data["home"] = str(root)
    atomic_write(target, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def app_home(cli_root: str | None = None, path: Path | None = None) -> Home:
    """The home the app opens: ``--root``, else the folder chosen in Settings, else ``$OPENMAUSBOT_HOME`` or the default."""
    if cli_root:
        return Home.locate(cli_root)
    chosen = saved_home(path)
    return Home.locate(chosen) if chosen is not None else Home.locate()


# --- checks ---------------------------------------------------------------------------

@dataclass(frozen=True)
class HomeCheck:
    ok: bool
    message: str


def check_home(root: str | Path) -> HomeCheck:
    """Whether *root* is a home botmemory can open, in one sentence (core's ``describe_home``: its bots and the
    agent folders it tracks — a home that only tracks agents' folders is a home too)."""
    info = describe_home(root)
    return HomeCheck(info.ok, info.message)


def _checked(check: Callable[..., Any], *args: Any) -> Any:
    """Core's check of a config.json value, its refusal as the ValueError the form collects."""
    try:
        return check(*args)
    except BadInput as e:
        raise ValueError(str(e)) from None


def parse_tidy_hour(value: object) -> int:
    """A whole hour 0–23, from an int or its digits (core's ``check_tidy_hour``); else ValueError."""
    hour: int = _checked(check_tidy_hour, value)
    return hour


def check_instance(value: str) -> str:
    """The helper's instance id, stripped; "" switches the helper off (core's ``check_helper_instance``)."""
    text: str = _checked(check_helper_instance, value)
    return text


def check_model(value: str, instance: str) -> str:
    text: str = _checked(check_helper_model, value, instance)
    return text


def check_api_key(value: str, instance: str) -> str:
    """A new API key ("" keeps the stored one)."""
    text = value.strip()
    if not text:
        return ""
    if not instance:
        raise ValueError("An API key belongs to a helper instance: fill in the instance first.")
    if len(text) > MAX_KEY_CHARS or any(c.isspace() or not c.isprintable() for c in text):
        raise ValueError("The API key is one line of printable characters without spaces; "
                         "paste it again from your provider.")
    return text


@dataclass(frozen=True)
class Form:
    """The Settings values as typed."""

    home: str
    start_at_login: bool = False
    helper_instance: str = ""
    helper_model: str = ""
    api_key: str = ""
    tidy_hour: object = DEFAULT_TIDY_HOUR
    auto_recall: bool = True


@dataclass(frozen=True)
class Settings:
    """Checked values, ready to save. ``api_key`` "" keeps whatever the keyring holds."""

    home: Path
    start_at_login: bool
    helper_instance: str
    helper_model: str
    api_key: str
    tidy_hour: int
    auto_recall: bool


def validate(form: Form) -> Settings:
    """Check every field; raise :class:`Invalid` naming every problem, or return the values to save."""
    problems: dict[str, str] = {}
    home_check = check_home(form.home)
    if not home_check.ok:
        problems[HOME] = home_check.message
    instance = ""
    try:
        instance = check_instance(form.helper_instance)
    except ValueError as e:
        problems[INSTANCE] = str(e)
    # An instance that was typed but refused still counts as typed for the model and key checks.
    typed = instance or form.helper_instance.strip()
    model = key = ""
    try:
        model = check_model(form.helper_model, typed)
    except ValueError as e:
        problems[MODEL] = str(e)
    try:
        key = check_api_key(form.api_key, typed)
    except ValueError as e:
        problems[API_KEY] = str(e)
    hour = DEFAULT_TIDY_HOUR
    try:
        hour = parse_tidy_hour(form.tidy_hour)
    except ValueError as e:
        problems[TIDY_HOUR] = str(e)
    if problems:
        raise Invalid(problems)
    return Settings(Path(form.home.strip()).expanduser().absolute(), bool(form.start_at_login),
                    instance, model, key, hour, bool(form.auto_recall))


# --- config.json ----------------------------------------------------------------------

def read_config_strict(home: Home) -> dict[str, Any]:
    """``config.json`` as a dict ({} when missing); :class:`Invalid` when it cannot be safely rewritten."""
    try:
        return core_read_config_strict(home)
    except BadInput as e:
        raise Invalid({CONFIG: str(e)}) from None


def form_values(config: dict[str, Any]) -> dict[str, Any]:
    """What the dialog shows for a config: the values a bot server would use (core's ``config_values``)."""
    v = config_values(config)
    return {INSTANCE: v.helper_instance, MODEL: v.helper_model, TIDY_HOUR: v.tidy_hour, RECALL: v.auto_recall}


def apply_settings(config: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """A copy of *config* with the Settings keys set; every other key kept as it was (core's ``apply_config``)."""
    try:
        return apply_config(config, ConfigValues(settings.helper_instance, settings.helper_model,
                                                 settings.tidy_hour, settings.auto_recall))
    except BadInput as e:
        raise Invalid({CONFIG: str(e)}) from None


# --- load and save (run on the worker) ------------------------------------------------

@dataclass(frozen=True)
class Loaded:
    """Everything the dialog shows, read off the UI thread."""

    home: Path
    home_check: HomeCheck
    values: dict[str, Any]
    config_problem: str | None
    start_at_login: bool
    autostart_where: str
    keyring: keystore.KeyringStatus
    has_key: bool | None


def load(home: Path, autostart: autostart_mod.Autostart,
         backend: keyring.backend.KeyringBackend | None = None) -> Loaded:
    check = check_home(home)
    problem = None
    config: dict[str, Any] = {}
    if check.ok:
        try:
            config = read_config_strict(Home(home))
        except Invalid as e:
            problem = e.problems[CONFIG]
    values = form_values(config)
    kr = keystore.status(backend)
    key = keystore.has_key(values[INSTANCE], backend) if values[INSTANCE] else None
    try:
        on = autostart.is_enabled()
    except OSError as e:
        logger.warning("cannot tell whether start at login is on: %s", e)
        on = False
    return Loaded(home, check, values, problem, on, autostart.describe(), kr, key)


@dataclass(frozen=True)
class Saved:
    settings: Settings
    changed: list[str] = field(default_factory=list)


def save(settings: Settings, autostart: autostart_mod.Autostart, *,
         backend: keyring.backend.KeyringBackend | None = None, ui_path: Path | None = None,
         command: Sequence[str] | None = None, app_settings: bool = True) -> Saved:
    """Write checked settings: key, then ``config.json``, then start at login, then the home choice.

    Raises :class:`Invalid` before writing anything when ``config.json`` cannot
    be safely rewritten, and :class:`keystore.KeyringUnavailable` when a new key
    cannot be stored (nothing written then either).
    """
    home = Home(settings.home)
    config = read_config_strict(home)
    new = apply_settings(config, settings)
    changed: list[str] = []
    if settings.api_key:
        try:
            keystore.store_key(settings.helper_instance, settings.api_key, backend)
        except keystore.KeyringUnavailable as e:
            raise Invalid({API_KEY: str(e)}) from None
        changed.append("API key")
    if new != config:
        write_config(home, new)
        changed.append("config.json")
    if not app_settings:   # the demo: its own config.json only, never the app's settings
        logger.info("settings saved (%s); the demo keeps the app's settings as they were",
                    ", ".join(changed) or "nothing changed")
        return Saved(settings, changed)
    if autostart.is_enabled() != settings.start_at_login:
        autostart_mod.set_enabled(autostart, settings.start_at_login, command)
        changed.append("start at login")
    if saved_home(ui_path) != settings.home:
        save_home(settings.home, ui_path)
        changed.append("home folder")
    logger.info("settings saved (%s)", ", ".join(changed) or "nothing changed")
    return Saved(settings, changed)


# --- the dialog -----------------------------------------------------------------------

def _note(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class SettingsDialog(QDialog):
    """Settings for one home. Emits :attr:`saved` with the :class:`Settings` written, then closes."""

    loaded = Signal()
    home_checked = Signal(object)      # HomeCheck
    key_checked = Signal()
    saved = Signal(object)             # Settings
    home_changed = Signal(object)      # Path: the home folder changed on save
    failed = Signal(str)
    agents_requested = Signal()        # the person asked to choose the agent folders to track

    def __init__(self, home: Home, parent: QWidget | None = None, *, worker: Worker | None = None,
                 autostart: autostart_mod.Autostart | None = None,
                 keyring_backend: keyring.backend.KeyringBackend | None = None,
                 ui_path: Path | None = None, command: Sequence[str] | None = None,
                 demo: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")   # the platform adds " — Bot Memory"
        self.demo = demo
        self.setMinimumWidth(MIN_WIDTH)
        self._own_worker = worker is None
        self._worker = worker if worker is not None else Worker(self)
        self._autostart = autostart if autostart is not None else autostart_mod.for_platform()
        self._backend = keyring_backend
        self._ui_path = ui_path
        self._command = command
        self._home = home
        self._start_home = home.root
        self._loaded_home = home.root
        self._keyring_ok = False
        self._has_key: bool | None = None
        self._build()
        if demo:
            self.demo_note = _note(DEMO_NOTE)
            self.demo_note.setStyleSheet("color: #b26a00;")
            box = self.layout()
            assert isinstance(box, QVBoxLayout)
            box.insertWidget(0, self.demo_note)
            for w in (self.home_edit, self.browse_button, self.login_check):
                w.setToolTip(DEMO_NOTE)
        self._set_busy(True)
        self._load(home.root, first=True)

    # building ---------------------------------------------------------------------

    def _build(self) -> None:
        self.home_edit = QLineEdit()
        self.home_edit.setPlaceholderText("~/.openmausbot")
        self.browse_button = QPushButton("Choose…")
        self.home_status = _note()
        home_row = QHBoxLayout()
        home_row.addWidget(self.home_edit, 1)
        home_row.addWidget(self.browse_button)
        home_box = QGroupBox("Home folder")
        home_layout = QVBoxLayout(home_box)
        home_layout.addLayout(home_row)
        home_layout.addWidget(self.home_status)

        self.login_check = QCheckBox("Start Bot Memory when I log in")
        self.login_where = ElidedLabel()     # a long path is cut in the middle, never widening the form
        self.login_where.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        login_box = QGroupBox("Start at login")
        login_layout = QVBoxLayout(login_box)
        login_layout.addWidget(self.login_check)
        login_layout.addWidget(self.login_where)

        self.instance_edit = QLineEdit()
        self.instance_edit.setPlaceholderText("off — or claude, openai, openrouter…")
        self.model_edit = QLineEdit()
        self.model_edit.setPlaceholderText("the instance's usual quick model")
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("leave empty to keep the stored key")
        self.forget_key_button = QPushButton("Forget key")
        self.key_status = _note()
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.forget_key_button)
        helper_box = QGroupBox("Helper model")
        helper_form = QFormLayout(helper_box)
        helper_form.addRow(_note(
            "Off unless set. With a helper set, the text of the jobs it writes (the turns being "
            "captured, memory notes, history being summarised) goes to the helper's provider. "
            "A server's OMB_HELPER_INSTANCE, when set, wins over this."))
        helper_form.addRow("Instance:", self.instance_edit)
        helper_form.addRow("Model:", self.model_edit)
        helper_form.addRow("API key:", key_row)
        helper_form.addRow(self.key_status)

        self.tidy_spin = QSpinBox()
        self.tidy_spin.setRange(0, 23)
        self.tidy_spin.setSuffix(":00")
        self.tidy_spin.setValue(DEFAULT_TIDY_HOUR)
        self.recall_check = QCheckBox("Recall matching notes before each turn")
        self.recall_check.setChecked(True)
        upkeep_box = QGroupBox("Memory upkeep")
        upkeep_form = QFormLayout(upkeep_box)
        no_wheel_unless_focused(self.tidy_spin)
        upkeep_form.addRow("Nightly tidy-up after:", self.tidy_spin)
        upkeep_form.addRow(self.recall_check)

        self.agents_button = QPushButton("Claude Code, OpenClaw and Hermes folders…")
        agents_box = QGroupBox("Agent memory folders")
        agents_layout = QVBoxLayout(agents_box)
        agents_layout.addWidget(_note("botmemory also serves the memory folders of the agents you run: "
                                      "choose which ones it tracks."))
        agents_layout.addWidget(self.agents_button)
        self.agents_button.clicked.connect(self.agents_requested)

        self.error_label = _note()
        self.error_label.setStyleSheet("color: #c62828;")
        self.error_label.hide()

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)

        # The form scrolls, so on a small screen (a 768-pixel laptop) Save and Cancel stay on it.
        self.form_widget = QWidget()
        form_layout = QVBoxLayout(self.form_widget)
        form_layout.setContentsMargins(0, 0, 0, 0)
        form_layout.addWidget(home_box)
        form_layout.addWidget(login_box)
        form_layout.addWidget(helper_box)
        form_layout.addWidget(upkeep_box)
        form_layout.addWidget(agents_box)
        self.agents_page = AgentsPage(self._home, self._worker, demo=self.demo)   # with its tracked folders
        form_layout.addWidget(self.agents_page)
        self.form_scroll = QScrollArea()
        self.form_scroll.setWidget(self.form_widget)
        self.form_scroll.setWidgetResizable(True)
        self.form_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.form_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.addWidget(self.form_scroll, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        self.browse_button.clicked.connect(self._browse)
        self.home_edit.editingFinished.connect(self._home_edited)
        self.instance_edit.editingFinished.connect(self._instance_edited)
        self.forget_key_button.clicked.connect(self._forget_key)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

    def _fields(self) -> dict[str, QWidget]:
        return {HOME: self.home_edit, INSTANCE: self.instance_edit, MODEL: self.model_edit,
                API_KEY: self.key_edit, TIDY_HOUR: self.tidy_spin, RECALL: self.recall_check,
                LOGIN: self.login_check, CONFIG: self.home_edit}

    def _fit(self) -> None:
        """Grow to show every wrapped sentence in full (their text arrives after the first layout)."""
        # Let the group boxes take in their labels' new text first (their layouts update on LayoutRequest).
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        layout = self.layout()
        if layout is not None:
            layout.activate()
        form_need = self.form_widget.heightForWidth(self.form_scroll.viewport().width())
        if form_need < 0:
            form_need = self.form_widget.sizeHint().height()
        # a scroll area squeezes its widget to the viewport: keep every wrapped sentence whole, scroll instead
        self.form_widget.setMinimumHeight(form_need)
        need = self.height() - self.form_scroll.viewport().height() + form_need
        screen = self.screen()
        cap = need
        if screen is not None:   # never taller than the screen (less the window's frame): the form scrolls
            # a window manager adds its title bar only once the window is shown: until then, guess it
            frame = self.frameGeometry().height() - self.height()
            cap = screen.availableGeometry().height() - (frame if frame > 0 else FRAME_GUESS[1])
            need = min(need, cap)
        if need > self.height() or self.height() > cap:
            self.resize(self.width(), min(max(need, self.height()), cap))
        if screen is not None:   # grown downwards past the screen's bottom: move up, Save stays in reach
            area, geo = screen.availableGeometry(), self.frameGeometry()
            if geo.bottom() > area.bottom():
                self.move(geo.x(), max(area.top(), area.bottom() - geo.height() + 1))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit()
        QTimer.singleShot(250, self._fit)     # again once the window manager has framed it (its real title bar)

    def _set_busy(self, busy: bool) -> None:
        for widget in (self.home_edit, self.browse_button, self.login_check, self.instance_edit,
                       self.model_edit, self.tidy_spin, self.recall_check, self.save_button):
            widget.setEnabled(not busy)
        if self.demo:   # the demo never chooses the home or start at login
            for widget in (self.home_edit, self.browse_button, self.login_check):
                widget.setEnabled(False)
        self.key_edit.setEnabled(not busy and self._keyring_ok)
        self.forget_key_button.setEnabled(not busy and self._keyring_ok and bool(self._has_key))

    # loading ----------------------------------------------------------------------

    def _load(self, root: Path, first: bool = False) -> None:
        autostart, backend = self._autostart, self._backend
        self._worker.read(lambda: load(root, autostart, backend),
                          lambda result: self._on_loaded(result, first), self._on_error)

    def _on_loaded(self, state: Loaded, first: bool) -> None:
        if first:
            self.home_edit.setText(str(state.home))
            self.login_check.setChecked(state.start_at_login)
        self.login_where.setText(f"Kept in {state.autostart_where}")
        self._show_home(state.home_check)
        if state.home_check.ok or first:
            self._loaded_home = state.home
            self.instance_edit.setText(state.values[INSTANCE])
            self.model_edit.setText(state.values[MODEL])
            self.tidy_spin.setValue(state.values[TIDY_HOUR])
            self.recall_check.setChecked(state.values[RECALL])
        self._show_key(state.keyring, state.has_key)
        self._show_errors({CONFIG: state.config_problem} if state.config_problem else {})
        self._set_busy(False)
        self._fit()
        self.loaded.emit()
        self.home_checked.emit(state.home_check)

    def _show_home(self, check: HomeCheck) -> None:
        self.home_status.setText(check.message)
        self.home_status.setStyleSheet("" if check.ok else "color: #c62828;")

    def _show_key(self, status: keystore.KeyringStatus, has_key: bool | None) -> None:
        self._keyring_ok = status.available
        self._has_key = has_key
        if not status.available:
            self.key_status.setText(status.message)
            self.key_status.setStyleSheet("color: #b26a00;")
        else:
            stored = {True: "A key is stored for this instance.", False: "No key is stored for this instance.",
                      None: ""}[has_key]
            self.key_status.setText(f"{stored} {status.message}".strip())
            self.key_status.setStyleSheet("")
        busy = not self.save_button.isEnabled()
        self.key_edit.setEnabled(not busy and status.available)
        self.forget_key_button.setEnabled(not busy and status.available and bool(has_key))

    def _browse(self) -> None:
        start = self.home_edit.text().strip() or str(Path.home())
        chosen = QFileDialog.getExistingDirectory(self, "Choose the OpenMausBot home folder", start)
        if chosen:
            self.home_edit.setText(chosen)
            self._home_edited()

    def _home_edited(self) -> None:
        text = self.home_edit.text().strip()
        if not text:
            self._show_home(check_home(text))
            return
        root = Path(text).expanduser().absolute()
        if root == self._loaded_home:
            return
        self._load(root)

    def _instance_edited(self) -> None:
        try:
            instance = check_instance(self.instance_edit.text())
        except ValueError as e:
            self._show_errors({INSTANCE: str(e)})
            return
        backend = self._backend

        def probe() -> tuple[keystore.KeyringStatus, bool | None]:
            return keystore.status(backend), keystore.has_key(instance, backend) if instance else None

        self._worker.read(probe, self._on_key_probed, self._on_error)

    def _on_key_probed(self, result: tuple[keystore.KeyringStatus, bool | None]) -> None:
        self._show_key(*result)
        self._fit()
        self.key_checked.emit()

    def _forget_key(self) -> None:
        instance = self.instance_edit.text().strip()
        if not instance:
            return
        backend = self._backend

        def forget() -> tuple[keystore.KeyringStatus, bool | None]:
            keystore.delete_key(instance, backend)
            return keystore.status(backend), keystore.has_key(instance, backend)

        self._worker.write(forget, self._on_key_probed, self._on_error)

    # saving -----------------------------------------------------------------------

    def form(self) -> Form:
        return Form(
            home=self.home_edit.text(),
            start_at_login=self.login_check.isChecked(),
            helper_instance=self.instance_edit.text(),
            helper_model=self.model_edit.text(),
            api_key=self.key_edit.text() if self._keyring_ok else "",
            tidy_hour=self.tidy_spin.value(),
            auto_recall=self.recall_check.isChecked(),
        )

    def save(self) -> None:
        """Check and write everything on the worker; refused values show a message and nothing is written."""
        form = self.form()
        autostart, backend, ui_path, command = self._autostart, self._backend, self._ui_path, self._command
        app_settings = not self.demo
        self._show_errors({})
        self._set_busy(True)
        self._worker.write(lambda: save(validate(form), autostart, backend=backend, ui_path=ui_path,
                                        command=command, app_settings=app_settings),
                           self._on_saved, self._on_error)

    def _on_saved(self, result: Saved) -> None:
        self._set_busy(False)
        self.key_edit.clear()
        self.saved.emit(result.settings)
        if result.settings.home != self._start_home:
            self.home_changed.emit(result.settings.home)
        self.accept()

    def _on_error(self, error: BaseException) -> None:
        self._set_busy(False)
        if isinstance(error, Invalid):
            self._show_errors(error.problems)
            if HOME in error.problems:
                self._show_home(HomeCheck(False, error.problems[HOME]))
            message = " ".join(error.problems.values())
        else:
            logger.error("settings: %s", error, exc_info=error)
            detail = f"{error.strerror}: {error.filename}" if isinstance(error, OSError) and error.filename else str(error)
            message = f"Could not save everything: {detail or type(error).__name__}"
            self._show_errors({"": message})
        self.failed.emit(message)

    def _show_errors(self, problems: dict[str, str]) -> None:
        if not problems:
            self.error_label.clear()
            self.error_label.hide()
            return
        self.error_label.setText("\n".join(problems.values()))
        self.error_label.show()
        self._fit()
        first = next(iter(problems))
        widget = self._fields().get(first)
        if widget is not None:
            widget.setFocus()

    def done(self, result: int) -> None:
        super().done(result)
        if self._own_worker:
            self._worker.shutdown()
