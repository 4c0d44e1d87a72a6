"""The helper model client: configuration, keys, both wire shapes, and failing or slow helpers.

The fakes live at the edges only: a loopback HTTP server that speaks the
OpenAI chat-completions shape or Anthropic's messages shape, and a dict-backed
keyring backend. ``test_tidy.py`` imports both.
"""
from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.errors
import pytest

from botmemory.core.disk import config
from botmemory.core.disk.paths import Home
from botmemory.core.upkeep import helper
from botmemory.core.upkeep.helper import Helper, HelperConfig, HelperError
from tests.fakes import MemoryKeyring

from ..conftest import BOT

# ----- fakes at the edges


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    before = keyring.get_keyring()
    kr = MemoryKeyring()
    keyring.set_keyring(kr)
    try:
        yield kr
    finally:
        keyring.set_keyring(before)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    before = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(before)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


Answer = Callable[["Seen"], "str | tuple[int, bytes]"]


@dataclass
class FakeModel:
    """A loopback server speaking one shape; ``answer`` gives the model's text for each request."""

    shape: str                                  # "openai" or "anthropic"
    answer: Answer = lambda seen: '{"pairs": []}'
    delay: float = 0.0                          # seconds before answering
    trickle: bool = False                       # send the body one byte at a time, slowly
    seen: list[Seen] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    server: ThreadingHTTPServer | None = None
    thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}" + ("/v1" if self.shape == "openai" else "")

    def wrap(self, text: str) -> dict[str, Any]:
        if self.shape == "openai":
            return {"id": "x", "object": "chat.completion",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}]}
        return {"id": "msg", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}

    def start(self) -> FakeModel:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(n) or b"{}")
                seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                fake.seen.append(seen)
                if fake.delay:
                    fake.release.wait(fake.delay)
                out = fake.answer(seen)
                if isinstance(out, tuple):
                    status, data = out
                else:
                    status, data = 200, json.dumps(fake.wrap(out)).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if fake.trickle:
                        for i in range(len(data)):
                            if fake.release.wait(0.1):
                                return
                            self.wfile.write(data[i:i + 1])
                            self.wfile.flush()
                    else:
                        self.wfile.write(data)
                except OSError:
                    pass  # the client gave up

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       name=f"fake-{self.shape}")
        self.thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
        if self.thread is not None:
            self.thread.join(5)


@pytest.fixture(params=["openai", "anthropic"])
def fake_model(request: pytest.FixtureRequest) -> Iterator[FakeModel]:
    fake = FakeModel(request.param).start()
    try:
        yield fake
    finally:
        fake.stop()


def configure(home: Home, fake: FakeModel, keys: MemoryKeyring | None = None, *, timeout: float = 2.0,
              **extra: Any) -> None:
    """Point config.json's helper at *fake* (and store an API key for it)."""
    instance = "claude" if fake.shape == "anthropic" else "ollama"
    section = {"instanceId": instance, "model": "test-model", "baseUrl": fake.base_url,
               "timeoutSeconds": timeout, **extra}
    cfg = config.read_config(home)
    cfg["helper"] = section
    config.write_config(home, cfg)
    if keys is not None:
        keys.set_password(helper.KEYRING_SERVICE, instance, f"key-for-{instance}")


@pytest.fixture(autouse=True)
def _fresh_log_once() -> Iterator[None]:
    helper._logged.clear()
    yield
    helper._logged.clear()


# ----- configuration


def test_no_helper_is_the_default(mem):
    assert helper.read_config(mem.home).startswith("no helper model is set")
    assert isinstance(helper.resolve(mem.home, BOT), str)


def test_config_file(mem):
    config.write_config(mem.home, {"helper": {"instanceId": "claude", "model": "claude-haiku-4-5"}})
    cfg = helper.read_config(mem.home)
    assert isinstance(cfg, HelperConfig)
    assert (cfg.instance_id, cfg.shape, cfg.model, cfg.base_url) == (
        "claude", "anthropic", "claude-haiku-4-5", "https://api.anthropic.com")
    assert cfg.timeout == helper.MAX_WAIT_SECONDS


def test_environment_wins_and_empty_switches_off(mem, monkeypatch):
    config.write_config(mem.home, {"helper": {"instanceId": "claude", "model": "m1"}})
    monkeypatch.setenv("OMB_HELPER_INSTANCE", "openai")
    monkeypatch.setenv("OMB_HELPER_MODEL", "gpt-x")
    cfg = helper.read_config(mem.home)
    assert isinstance(cfg, HelperConfig)
    assert (cfg.instance_id, cfg.shape, cfg.model, cfg.base_url) == ("openai", "openai", "gpt-x",
                                                                    "https://api.openai.com/v1")
    monkeypatch.setenv("OMB_HELPER_INSTANCE", "")
    off = helper.read_config(mem.home)
    assert isinstance(off, str) and "switched off" in off


def test_model_from_environment_alone(mem, monkeypatch):
    config.write_config(mem.home, {"helper": {"instanceId": "claudeApi"}})
    monkeypatch.setenv("OMB_HELPER_MODEL", "claude-other")
    cfg = helper.read_config(mem.home)
    assert isinstance(cfg, HelperConfig) and cfg.shape == "anthropic" and cfg.model == "claude-other"


def test_changes_apply_without_a_restart(mem):
    assert isinstance(helper.read_config(mem.home), str)
    config.write_config(mem.home, {"helper": {"instanceId": "anthropic"}})
    assert isinstance(helper.read_config(mem.home), HelperConfig)
    config.write_config(mem.home, {})
    assert isinstance(helper.read_config(mem.home), str)


def test_an_unknown_instance_needs_a_base_url_and_a_model(mem):
    config.write_config(mem.home, {"helper": {"instanceId": "ollama"}})
    assert "baseUrl" in helper.read_config(mem.home)
    config.write_config(mem.home, {"helper": {"instanceId": "ollama", "baseUrl": "http://127.0.0.1:11434/v1"}})
    assert "no model" in helper.read_config(mem.home)
    config.write_config(mem.home, {"helper": {"instanceId": "ollama", "model": "llama3.2",
                                              "baseUrl": "http://127.0.0.1:11434/v1/"}})
    cfg = helper.read_config(mem.home)
    assert isinstance(cfg, HelperConfig)
    assert (cfg.shape, cfg.base_url, cfg.local) == ("openai", "http://127.0.0.1:11434/v1", True)


@pytest.mark.parametrize("bad", ["file:///etc/passwd", "ftp://x/v1", "not a url"])
def test_only_http_addresses(mem, bad):
    config.write_config(mem.home, {"helper": {"instanceId": "x", "model": "m", "baseUrl": bad}})
    assert isinstance(helper.read_config(mem.home), str)


@pytest.mark.parametrize("value, expected", [(5, 5.0), (0.25, 0.25), (600, 20.0), (-1, 20.0), ("3", 20.0),
                                             (True, 20.0)])
def test_timeout_is_configurable_but_never_above_twenty_seconds(mem, value, expected):
    config.write_config(mem.home, {"helper": {"instanceId": "claude", "timeoutSeconds": value}})
    cfg = helper.read_config(mem.home)
    assert isinstance(cfg, HelperConfig) and cfg.timeout == expected
    cfg = helper.read_config(mem.home, timeout=0.5)
    assert isinstance(cfg, HelperConfig) and cfg.timeout == min(expected, 0.5)


def test_bad_config_json_means_no_helper(mem):
    mem.home.config_file.write_text("{not json", encoding="utf-8")
    assert isinstance(helper.read_config(mem.home), str)
    mem.home.config_file.write_text('{"helper": "claude"}', encoding="utf-8")
    assert isinstance(helper.read_config(mem.home), str)


# ----- keys


def test_key_from_the_keyring_never_from_config(mem, memory_keyring):
    config.write_config(mem.home, {"helper": {"instanceId": "claude", "apiKey": "sk-ant-from-config"}})
    reason = helper.resolve(mem.home, BOT)
    assert isinstance(reason, str) and "no API key" in reason
    memory_keyring.set_password("botmemory", "claude", "the-real-key")
    h = helper.resolve(mem.home, BOT)
    assert isinstance(h, Helper) and "the-real-key" not in repr(h)


def test_no_keyring_backend_skips_and_says_so(mem, no_keyring):
    config.write_config(mem.home, {"helper": {"instanceId": "openai"}})
    reason = helper.resolve(mem.home, BOT)
    assert isinstance(reason, str) and "no keyring backend" in reason


def test_a_helper_on_this_computer_needs_no_key(mem, no_keyring):
    config.write_config(mem.home, {"helper": {"instanceId": "ollama", "model": "m",
                                              "baseUrl": "http://localhost:11434/v1"}})
    assert isinstance(helper.resolve(mem.home, BOT), Helper)


def test_bot_switched_off_the_helper(mem, memory_keyring):
    config.write_config(mem.home, {"helper": {"instanceId": "claude"}})
    memory_keyring.set_password("botmemory", "claude", "k")
    config.set_bot_setting(mem.home, BOT, "helper", False)
    reason = helper.resolve(mem.home, BOT)
    assert isinstance(reason, str) and "switched off for scout" in reason


def test_why_is_logged_once(mem, caplog):
    config.write_config(mem.home, {"helper": {"instanceId": "somewhere"}})
    with caplog.at_level(logging.INFO, logger="botmemory.core.upkeep.helper"):
        for _ in range(3):
            helper.resolve(mem.home, BOT)
    records = [r for r in caplog.records if "helper model not used" in r.getMessage()]
    assert len(records) == 1 and records[0].levelno == logging.WARNING


# ----- calls


def test_a_call_in_each_shape(mem, fake_model, memory_keyring):
    fake_model.answer = lambda seen: "hello there"
    configure(mem.home, fake_model, memory_keyring)
    h = helper.resolve(mem.home, BOT)
    assert isinstance(h, Helper)
    assert h.complete("be brief", "say hello") == "hello there"
    (seen,) = fake_model.seen
    assert seen.body["model"] == "test-model"
    if fake_model.shape == "openai":
        assert seen.path == "/v1/chat/completions"
        assert seen.headers["authorization"] == "Bearer key-for-ollama"
        assert seen.body["messages"] == [{"role": "system", "content": "be brief"},
                                         {"role": "user", "content": "say hello"}]
    else:
        assert seen.path == "/v1/messages"
        assert seen.headers["x-api-key"] == "key-for-claude"
        assert seen.headers["anthropic-version"] == helper.ANTHROPIC_VERSION
        assert seen.body["system"] == "be brief"
        assert seen.body["messages"] == [{"role": "user", "content": "say hello"}]
        assert isinstance(seen.body["max_tokens"], int)


def test_a_local_openai_endpoint_without_a_key_sends_none(mem, memory_keyring):
    fake = FakeModel("openai", answer=lambda seen: "ok").start()
    try:
        configure(mem.home, fake)
        h = helper.resolve(mem.home, BOT)
        assert isinstance(h, Helper) and h.complete("s", "p") == "ok"
        assert "authorization" not in fake.seen[0].headers
    finally:
        fake.stop()


def _client(fake: FakeModel, timeout: float = 2.0) -> Helper:
    shape = fake.shape
    return Helper(HelperConfig("claude" if shape == "anthropic" else "ollama", shape, fake.base_url, "m", timeout), "k")


@pytest.mark.parametrize("status, body, why", [
    (500, b'{"error": "boom"}', "HTTP 500"),
    (401, b'{"error": "no"}', "HTTP 401"),
    (200, b"<html>not json</html>", "not JSON"),
    (200, b'{"unexpected": true}', "no "),
    (200, b'[1, 2]', "no "),
])
def test_a_failing_helper_raises_helper_error(fake_model, status, body, why):
    fake_model.answer = lambda seen: (status, body)
    with pytest.raises(HelperError, match=why):
        _client(fake_model).complete("s", "p")


def test_a_slow_helper_times_out(fake_model):
    fake_model.delay = 30
    with pytest.raises(HelperError, match="did not answer within 0.3 seconds"):
        _client(fake_model, timeout=0.3).complete("s", "p")


def test_a_trickling_helper_is_cut_at_the_deadline(fake_model):
    fake_model.trickle = True
    fake_model.answer = lambda seen: "x" * 200
    with pytest.raises(HelperError, match="did not answer within"):
        _client(fake_model, timeout=0.5).complete("s", "p")


def test_an_oversized_reply_is_refused(fake_model, monkeypatch):
    monkeypatch.setattr(helper, "MAX_ANSWER_BYTES", 1000)
    fake_model.answer = lambda seen: "y" * 5000
    with pytest.raises(HelperError, match="larger than"):
        _client(fake_model).complete("s", "p")


def test_nobody_listening():
    fake = FakeModel("openai").start()
    url = fake.base_url
    fake.stop()
    h = Helper(HelperConfig("ollama", "openai", url, "m", 1.0), None)
    with pytest.raises(HelperError, match="could not be reached"):
        h.complete("s", "p")
