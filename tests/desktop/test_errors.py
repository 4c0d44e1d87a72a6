"""The desktop's own errors share core's base, so one `except BotMemoryError` covers them."""
from __future__ import annotations

from botmemory.core.base.errors import BotMemoryError
from botmemory.desktop.keystore import KeyringUnavailable
from botmemory.desktop.settings_dialog import Invalid


def test_desktop_errors_derive_from_the_core_base():
    assert issubclass(KeyringUnavailable, BotMemoryError)
    assert issubclass(Invalid, BotMemoryError) and issubclass(Invalid, ValueError)
    assert Invalid({"a": "one.", "b": "two."}).exit_code == 2
