"""The helper model's API key in the OS keyring. Qt-free.

Service ``botmemory``, user name the helper's ``instanceId`` — the same place
``botmemory.core.upkeep.helper`` reads it from. The key is never written to
``config.json`` or any other file. With no keyring backend the key cannot be
kept at all; :func:`status` says so in words the Settings window shows as they are.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import keyring
import keyring.backend
import keyring.errors

from botmemory.core.ops import BotMemoryError

logger = logging.getLogger(__name__)

KEYRING_SERVICE = "botmemory"
"""Must equal ``botmemory.core.upkeep.helper.KEYRING_SERVICE`` (a test checks it)."""

NO_KEYRING = (
    "No keyring is available on this computer, so the helper's API key cannot be stored. "
    "botmemory never writes the key to config.json or any other file, so a key typed here is not kept: "
    "a helper on another server (Claude, OpenAI, OpenRouter) is not used, and its jobs fall back as if "
    "no helper were set. A helper on this computer (a loopback address, such as Ollama's) needs no key "
    "and still works. To store a key, install and unlock a keyring (GNOME Keyring or KWallet), "
    "then open Settings again."
)


class KeyringUnavailable(BotMemoryError):
    """There is no usable keyring backend, or it refused the request."""


@dataclass(frozen=True)
class KeyringStatus:
    available: bool
    backend: str
    message: str


def _backend(backend: keyring.backend.KeyringBackend | None) -> keyring.backend.KeyringBackend:
    return backend if backend is not None else keyring.get_keyring()


def _is_usable(backend: keyring.backend.KeyringBackend) -> bool:
    module = type(backend).__module__
    if module in ("keyring.backends.fail", "keyring.backends.null"):
        return False
    if module == "keyring.backends.chainer":
        return bool(getattr(backend, "backends", []))
    return True


def _name(backend: keyring.backend.KeyringBackend) -> str:
    name = getattr(backend, "name", "") or type(backend).__name__
    return str(name)


def status(backend: keyring.backend.KeyringBackend | None = None) -> KeyringStatus:
    """Whether an API key can be stored here, with the sentence to show either way."""
    kr = _backend(backend)
    if not _is_usable(kr):
        return KeyringStatus(False, _name(kr), NO_KEYRING)
    return KeyringStatus(True, _name(kr), f"API keys are kept in the system keyring ({_name(kr)}).")


def has_key(instance: str, backend: keyring.backend.KeyringBackend | None = None) -> bool | None:
    """True or False whether a key is stored for *instance*; None when the keyring cannot be read."""
    kr = _backend(backend)
    if not instance or not _is_usable(kr):
        return None
    try:
        return bool(kr.get_password(KEYRING_SERVICE, instance))
    except keyring.errors.KeyringError as e:
        logger.warning("cannot read the keyring (%s): %s", _name(kr), e)
        return None


def store_key(instance: str, key: str, backend: keyring.backend.KeyringBackend | None = None) -> None:
    """Store *key* for *instance*; raise :class:`KeyringUnavailable` (with a sentence to show) if it cannot be."""
    kr = _backend(backend)
    if not _is_usable(kr):
        raise KeyringUnavailable(NO_KEYRING)
    try:
        kr.set_password(KEYRING_SERVICE, instance, key)
    except keyring.errors.KeyringError as e:
        raise KeyringUnavailable(f"The keyring ({_name(kr)}) did not store the API key: {e}. "
                                 "Nothing was saved.") from None
    logger.info("stored the helper API key for %r in %s", instance, _name(kr))


def delete_key(instance: str, backend: keyring.backend.KeyringBackend | None = None) -> bool:
    """Remove the key stored for *instance*; False when there was none."""
    kr = _backend(backend)
    if not _is_usable(kr):
        raise KeyringUnavailable(NO_KEYRING)
    try:
        kr.delete_password(KEYRING_SERVICE, instance)
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as e:
        raise KeyringUnavailable(f"The keyring ({_name(kr)}) did not remove the API key: {e}.") from None
    logger.info("removed the helper API key for %r from %s", instance, _name(kr))
    return True
