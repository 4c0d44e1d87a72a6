"""The helper model: one connected provider instance that writes upkeep's small texts.

It is off unless set. ``<home>/config.json`` holds it::

    {"helper": {"instanceId": "claude", "model": "claude-haiku-4-5"}}

``OMB_HELPER_INSTANCE`` and ``OMB_HELPER_MODEL`` win over the file; an empty
``OMB_HELPER_INSTANCE`` switches a saved helper off. Both are read again on
every call, so adding or removing the helper applies without a restart. A bot
whose ``helper`` switch is off (``botmemory settings BOT helper off``) never
uses it.

Two wire shapes, standard library only:

- Anthropic's messages API for ``instanceId`` ``claude``, ``claudeApi`` or
  ``anthropic`` (``POST {base}/v1/messages``; base ``https://api.anthropic.com``);
- an OpenAI-compatible chat-completions endpoint for every other instance
  (``POST {base}/chat/completions``): ``openai`` and ``openrouter`` have known
  bases; Ollama (``http://127.0.0.1:11434/v1``), LM Studio, llama.cpp's server
  or any other one is named with ``helper.baseUrl``.

``helper.baseUrl`` overrides the base of either shape, ``helper.timeoutSeconds``
shortens the 20-second limit (never lengthens it). API keys are read from the
OS keyring (service ``botmemory``, user name the instance id), never from a
config file; an endpoint on this computer (loopback) may do without one. With
no keyring backend an endpoint that needs a key is not used, and the reason
says so.

A missing, switched-off, failing or slow helper breaks nothing: :func:`resolve`
returns the reason instead of a client, a call raises :class:`HelperError`,
the caller skips its step, and the log says why once.
"""
from __future__ import annotations

import ipaddress
import json
import logging
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Protocol

from ..base.errors import BotMemoryError
from ..disk import config
from ..disk.paths import Home

logger = logging.getLogger(__name__)

KEYRING_SERVICE = "botmemory"
MAX_WAIT_SECONDS = 20.0
"""No helper call waits longer than this, whatever the configuration says."""
MAX_ANSWER_BYTES = 1024 * 1024
ANTHROPIC_IDS = frozenset({"claude", "claudeapi", "anthropic"})
ANTHROPIC_BASE = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
OPENAI_BASES = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
}
DEFAULT_MODELS = {
    "anthropic": "claude-haiku-4-5",
    "openai": "gpt-4o-mini",
    "openrouter": "openai/gpt-4o-mini",
}
ENV_INSTANCE = "OMB_HELPER_INSTANCE"
ENV_MODEL = "OMB_HELPER_MODEL"


_FENCED = re.compile(r"\A```(?:json)?[ \t]*\n(.*)\n```\Z", re.DOTALL)


def parse_json_answer(text: str, key: str) -> dict[str, Any] | None:
    """One JSON object (optionally in a ```json fence) holding *key*; None otherwise."""
    raw = text.strip()
    m = _FENCED.match(raw)
    if m:
        raw = m.group(1).strip()
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and key in data else None


class HelperError(BotMemoryError):
    """A helper call that did not give a usable answer: the caller skips its step."""


class TextModel(Protocol):
    """What upkeep needs of a model: one short text call."""

    @property
    def name(self) -> str: ...

    def complete(self, system: str, prompt: str, *, max_tokens: int = 1024) -> str: ...


@dataclass(frozen=True)
class HelperConfig:
    """Where the helper is, as the configuration says now."""

    instance_id: str
    shape: str                  # "anthropic" or "openai"
    base_url: str
    model: str
    timeout: float = MAX_WAIT_SECONDS

    @property
    def local(self) -> bool:
        return is_loopback(self.base_url)


def is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_logged: set[str] = set()
_logged_lock = threading.Lock()


def log_once(reason: str, *, level: int = logging.WARNING) -> None:
    """Say once per process why the helper is not used."""
    with _logged_lock:
        if reason in _logged:
            return
        _logged.add(reason)
    logger.log(level, "helper model not used: %s", reason)


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def read_config(home: Home, *, timeout: float | None = None) -> HelperConfig | str:
    """The helper as configured right now, or why there is none. Re-read on every call."""
    raw = config.read_config(home).get("helper")
    section: dict[str, Any] = raw if isinstance(raw, dict) else {}
    env_instance = os.environ.get(ENV_INSTANCE)
    if env_instance is not None:
        instance = env_instance.strip()
        if not instance:
            return f"{ENV_INSTANCE} is empty: the helper is switched off"
    else:
        instance = _text(section.get("instanceId")) or ""
        if not instance:
            return "no helper model is set (helper.instanceId in config.json)"
    model = _text(os.environ.get(ENV_MODEL)) or _text(section.get("model"))
    base = _text(section.get("baseUrl"))
    lowered = instance.lower()
    if lowered in ANTHROPIC_IDS:
        shape = "anthropic"
        base = base or ANTHROPIC_BASE
        model = model or DEFAULT_MODELS["anthropic"]
    else:
        shape = "openai"
        base = base or OPENAI_BASES.get(lowered)
        if base is None:
            return (f"the helper instance {instance!r} has no endpoint: set helper.baseUrl in config.json "
                    "(an OpenAI-compatible base such as http://127.0.0.1:11434/v1)")
        model = model or DEFAULT_MODELS.get(lowered)
        if model is None:
            return f"the helper instance {instance!r} has no model: set helper.model or {ENV_MODEL}"
    scheme = urllib.parse.urlsplit(base).scheme
    if scheme not in ("http", "https"):
        return f"helper.baseUrl {base!r} is not an http(s) address"
    wait = MAX_WAIT_SECONDS
    cfg_wait = section.get("timeoutSeconds")
    if isinstance(cfg_wait, (int, float)) and not isinstance(cfg_wait, bool) and cfg_wait > 0:
        wait = min(wait, float(cfg_wait))
    if timeout is not None and timeout > 0:
        wait = min(wait, timeout)
    return HelperConfig(instance, shape, base.rstrip("/"), model, wait)


def api_key(instance_id: str) -> str | None:
    """The instance's API key from the OS keyring, None when it holds none.

    Raises :class:`HelperError` when there is no keyring backend at all.
    """
    import keyring
    import keyring.errors

    try:
        backend = keyring.get_keyring()
        module = type(backend).__module__
        if module in ("keyring.backends.fail", "keyring.backends.null") or (
                module == "keyring.backends.chainer" and not getattr(backend, "backends", None)):
            raise keyring.errors.NoKeyringError(module)
        key = backend.get_password(KEYRING_SERVICE, instance_id)
    except keyring.errors.NoKeyringError:
        raise HelperError("no keyring backend: the helper's API key cannot be read "
                          "(install a keyring backend, or use a helper on this computer)") from None
    except keyring.errors.KeyringError as e:
        raise HelperError(f"the keyring could not be read: {e}") from None
    return key or None


def resolve(home: Home, bot: str | None = None, *, timeout: float | None = None) -> Helper | str:
    """A client for the helper as configured now, or the reason there is none (logged once).

    A helper that is simply not set, or switched off, is logged at INFO; one
    that is set but cannot be used, as a warning.
    """
    reason = _why_not(home, bot)
    if reason is not None:
        log_once(reason, level=logging.INFO)
        return reason
    cfg = read_config(home, timeout=timeout)
    if isinstance(cfg, str):
        quiet = cfg.startswith("no helper model is set") or cfg.startswith(f"{ENV_INSTANCE} is empty")
        log_once(cfg, level=logging.INFO if quiet else logging.WARNING)
        return cfg
    try:
        key = api_key(cfg.instance_id)
    except HelperError as e:
        if not cfg.local:
            log_once(str(e))
            return str(e)
        key = None  # a helper on this computer may do without a key
    if key is None and not cfg.local:
        reason = (f"no API key for the helper instance {cfg.instance_id!r} in the keyring "
                  f"(service {KEYRING_SERVICE!r}, user name {cfg.instance_id!r})")
        log_once(reason)
        return reason
    return Helper(cfg, key)


def _why_not(home: Home, bot: str | None) -> str | None:
    if bot is not None and not config.bot_settings(home, bot).helper:
        return f"the helper is switched off for {bot}"
    return None


class Helper:
    """One configured helper: a single short text call, bounded in time and size."""

    def __init__(self, cfg: HelperConfig, key: str | None) -> None:
        self.cfg = cfg
        self._key = key

    @property
    def name(self) -> str:
        return f"{self.cfg.instance_id}/{self.cfg.model}"

    def __repr__(self) -> str:  # never shows the key
        return f"Helper({self.name} at {self.cfg.base_url})"

    def complete(self, system: str, prompt: str, *, max_tokens: int = 1024) -> str:
        """The model's text answer; raises :class:`HelperError` on any failure or after the time limit."""
        if self.cfg.shape == "anthropic":
            url = self.cfg.base_url + ("/messages" if self.cfg.base_url.endswith("/v1") else "/v1/messages")
            headers = {"anthropic-version": ANTHROPIC_VERSION}
            if self._key:
                headers["x-api-key"] = self._key
            body: dict[str, Any] = {
                "model": self.cfg.model, "max_tokens": max_tokens, "system": system,
                "messages": [{"role": "user", "content": prompt}], "temperature": 0,
            }
            return _anthropic_text(self._post(url, headers, body))
        url = self.cfg.base_url + "/chat/completions"
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        body = {
            "model": self.cfg.model, "max_tokens": max_tokens, "temperature": 0, "stream": False,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
        }
        return _openai_text(self._post(url, headers, body))

    def _post(self, url: str, headers: dict[str, str], body: dict[str, Any]) -> Any:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(url, data=data, method="POST",  # noqa: S310 - http(s) only
                                     headers={"Content-Type": "application/json",
                                              "Accept": "application/json",
                                              "User-Agent": "botmemory", **headers})
        deadline = time.monotonic() + self.cfg.timeout
        try:
            with urllib.request.urlopen(req, timeout=self.cfg.timeout) as resp:  # noqa: S310 - http(s) only
                raw = _read_until(resp, deadline)
        except urllib.error.HTTPError as e:
            raise HelperError(f"the helper answered HTTP {e.code}") from None
        except (TimeoutError, socket.timeout):
            raise HelperError(f"the helper did not answer within {self.cfg.timeout:g} seconds") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            why = getattr(e, "reason", e)
            if isinstance(why, (TimeoutError, socket.timeout)):
                raise HelperError(f"the helper did not answer within {self.cfg.timeout:g} seconds") from None
            raise HelperError(f"the helper could not be reached: {why}") from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise HelperError("the helper's reply is not JSON") from None


def _read_until(resp: Any, deadline: float) -> bytes:
    """Read the body in chunks; give up at *deadline* even when the server trickles."""
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        _set_socket_timeout(resp, left)
        chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise HelperError(f"the helper's reply is larger than {MAX_ANSWER_BYTES // 1024} KB")
        chunks.append(chunk)


def _set_socket_timeout(resp: Any, seconds: float) -> None:
    sock = getattr(getattr(getattr(resp, "fp", None), "raw", None), "_sock", None)
    if isinstance(sock, socket.socket):
        try:
            sock.settimeout(max(seconds, 0.001))
        except OSError:
            pass


def _anthropic_text(reply: Any) -> str:
    content = reply.get("content") if isinstance(reply, dict) else None
    if not isinstance(content, list):
        raise HelperError("the helper's reply has no content")
    parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    texts = [t for t in parts if isinstance(t, str)]
    if not texts:
        raise HelperError("the helper's reply has no text")
    return "".join(texts)


def _openai_text(reply: Any) -> str:
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise HelperError("the helper's reply has no choices")
    message = choices[0].get("message")
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(text, str):
        raise HelperError("the helper's reply has no text")
    return text
