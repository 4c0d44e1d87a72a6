"""Open in Obsidian (link building, vault and handler decision) and Show in file manager."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from botmemory.desktop import obsidian


def test_link_percent_encodes_spaces_and_non_ascii():
    p = Path("/home/zoë/My Vault/workspaces/scout/memory/café notes.md")
    url = obsidian.obsidian_url(p)
    assert url.startswith("obsidian://open?path=")
    query = url[len("obsidian://open?path="):]
    assert " " not in query and "ë" not in query and "é" not in query
    assert "%20" in query and "%C3%AB" in query and "%C3%A9" in query
    assert "/" not in query            # the whole path is one query value
    assert unquote(query) == str(p)


def test_link_escapes_characters_that_would_break_the_query():
    p = Path("/notes/a&b#c?d=e+f%g/MEMORY.md")
    query = obsidian.obsidian_url(p)[len("obsidian://open?path="):]
    for ch in "&#?=+":
        assert ch not in query
    assert unquote(query) == str(p)


def _obsidian_json(folder: Path, vaults: list[Path | str]) -> Path:
    f = folder / "obsidian.json"
    f.write_text(json.dumps({"vaults": {f"id{i}": {"path": str(v), "ts": 1, "open": i == 0}
                                       for i, v in enumerate(vaults)}}), encoding="utf-8")
    return f


def test_vaults_are_read_from_obsidian_json_and_never_written(tmp_path):
    f = _obsidian_json(tmp_path, [tmp_path / "Vault One", "/elsewhere/two"])
    before = f.read_bytes()
    mtime = f.stat().st_mtime_ns
    assert obsidian.read_vaults([f]) == [tmp_path / "Vault One", Path("/elsewhere/two")]
    assert f.read_bytes() == before and f.stat().st_mtime_ns == mtime


@pytest.mark.parametrize("content", ["not json", "[]", '{"vaults": 3}', '{"vaults": {"a": {"path": 7}}}'])
def test_a_bad_obsidian_json_lists_no_vault(tmp_path, content):
    f = tmp_path / "obsidian.json"
    f.write_text(content, encoding="utf-8")
    assert obsidian.read_vaults([f, tmp_path / "missing.json"]) == []


def test_config_locations_per_system(tmp_path):
    linux = obsidian.config_candidates("linux", {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}, tmp_path)
    assert linux[0] == tmp_path / "cfg" / "obsidian" / "obsidian.json"
    assert any("md.obsidian.Obsidian" in str(p) for p in linux)      # Flatpak
    assert any("snap" in p.parts for p in linux)
    mac = obsidian.config_candidates("darwin", {}, tmp_path)
    assert mac == [tmp_path / "Library" / "Application Support" / "obsidian" / "obsidian.json"]
    win = obsidian.config_candidates("win32", {"APPDATA": str(tmp_path / "Roaming")}, tmp_path)
    assert win == [tmp_path / "Roaming" / "obsidian" / "obsidian.json"]


def test_vault_of_finds_the_enclosing_vault(tmp_path):
    vault = tmp_path / "My Vault"
    inner = vault / "sub vault"
    ws = inner / "workspaces" / "scout"
    ws.mkdir(parents=True)
    assert obsidian.vault_of(ws, [vault]) == vault
    assert obsidian.vault_of(ws, [vault, inner]) == inner      # the innermost
    assert obsidian.vault_of(ws, [tmp_path / "My"]) is None     # a name prefix is not a parent
    assert obsidian.vault_of(vault, [vault]) == vault


def test_decision_in_a_vault_with_a_handler_opens_obsidian(tmp_path):
    vault = tmp_path / "Notes ü"
    ws = vault / "bots" / "scout"
    ws.mkdir(parents=True)
    plan = obsidian.plan(ws, [vault], handler=True)
    assert plan.in_obsidian and plan.url == obsidian.obsidian_url(ws) and plan.message == ""


def test_decision_outside_any_vault_opens_the_folder_and_says_how(tmp_path):
    ws = tmp_path / "workspaces" / "scout"
    ws.mkdir(parents=True)
    plan = obsidian.plan(ws, [tmp_path / "elsewhere"], handler=True)
    assert not plan.in_obsidian
    assert plan.url == ws.as_uri()
    assert "Open folder as vault" in plan.message and str(ws) in plan.message


def test_decision_without_a_handler_opens_the_folder_even_in_a_vault(tmp_path):
    ws = tmp_path / "vault" / "scout"
    ws.mkdir(parents=True)
    plan = obsidian.plan(ws, [tmp_path / "vault"], handler=False)
    assert not plan.in_obsidian and plan.url == ws.as_uri()
    assert "not seem to be installed" in plan.message


def test_handler_on_linux_asks_xdg_mime():
    calls = []

    def run(argv, **_kw):
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, "obsidian.desktop\n", "")

    assert obsidian.has_handler("linux", run) is True
    assert calls == [["xdg-mime", "query", "default", "x-scheme-handler/obsidian"]]
    empty = lambda argv, **_kw: subprocess.CompletedProcess(argv, 0, "\n", "")
    assert obsidian.has_handler("linux", empty) is False

    def broken(argv, **_kw):
        raise FileNotFoundError("xdg-mime")

    assert obsidian.has_handler("linux", broken) is False


def test_reveal_per_system(tmp_path):
    f = tmp_path / "a folder" / "MEMORY.md"
    assert obsidian.reveal(f, "darwin") == obsidian.Reveal(program="open", arguments=("-R", str(f)))
    assert obsidian.reveal(f, "win32") == obsidian.Reveal(program="explorer", arguments=(f"/select,{f}",))
    linux = obsidian.reveal(f, "linux")
    assert linux.dbus_uri == f.as_uri() and "%20" in linux.dbus_uri


def test_show_in_file_manager_uses_the_system_way(monkeypatch, tmp_path):
    started, opened, shown = [], [], []
    monkeypatch.setattr(obsidian, "start_detached", lambda prog, args: started.append((prog, args)) or True)
    monkeypatch.setattr(obsidian, "open_url", lambda url, done=None: opened.append(url) or opens(done, True))
    f = tmp_path / "MEMORY.md"
    assert obsidian.show_in_file_manager(f, "darwin")
    assert started == [("open", ["-R", str(f)])]
    monkeypatch.setattr(obsidian, "show_items", lambda uri, fallback, failed: shown.append((uri, fallback)) or True)
    assert obsidian.show_in_file_manager(f, "linux")
    assert shown == [(f.as_uri(), tmp_path.as_uri())] and opened == []
    monkeypatch.setattr(obsidian, "show_items", lambda uri, fallback, failed: False)   # no session bus
    assert obsidian.show_in_file_manager(f, "linux")
    assert opened == [tmp_path.as_uri()]


def test_when_nothing_opens_the_folder_it_says_so_with_the_path(monkeypatch, tmp_path):
    failed = []
    f = tmp_path / "MEMORY.md"
    monkeypatch.setattr(obsidian, "open_url", lambda url, done=None: opens(done, False))
    monkeypatch.setattr(obsidian, "show_items", lambda uri, fallback, fail: False)      # no session bus
    assert not obsidian.show_in_file_manager(f, "linux", failed=lambda text, path: failed.append((text, path)))
    assert failed == [(obsidian.NOTHING_OPENS_FOLDERS, f)]
    failed.clear()
    later = []
    monkeypatch.setattr(obsidian, "show_items", lambda uri, fallback, fail: later.append(fail) or True)
    assert obsidian.show_in_file_manager(f, "linux", failed=lambda text, path: failed.append((text, path)))
    later[0]()                                     # the DBus call failed and the folder did not open either
    assert failed == [(obsidian.NOTHING_OPENS_FOLDERS, f)]
    monkeypatch.setattr(obsidian, "start_detached", lambda prog, args: False)
    failed.clear()
    assert not obsidian.show_in_file_manager(f, "darwin", failed=lambda text, path: failed.append((text, path)))
    assert failed == [(obsidian.NOTHING_OPENS_FOLDERS, f)]


def test_open_in_obsidian_keeps_its_explanation_when_nothing_opens(qtbot, monkeypatch, tmp_path):
    from botmemory.desktop.worker import Worker

    ws = tmp_path / "ws"
    ws.mkdir()
    failed, said = [], []
    monkeypatch.setattr(obsidian, "read_vaults", list)
    monkeypatch.setattr(obsidian, "has_handler", lambda: False)
    monkeypatch.setattr(obsidian, "open_url", lambda url, done=None: opens(done, False))
    w = Worker()
    try:
        obsidian.open_in_obsidian(w, ws, said.append, lambda text, path: failed.append((text, path)))
        qtbot.waitUntil(lambda: bool(failed))
    finally:
        w.shutdown()
    text, path = failed[0]
    assert path == ws and obsidian.NOTHING_OPENS_FOLDERS in text
    assert obsidian.NO_HANDLER_SHORT in text and "Open folder as vault" in text
    assert "was opened instead" not in text


def test_open_in_obsidian_decides_on_the_worker_and_says_why(qtbot, monkeypatch, tmp_path):
    from botmemory.desktop.worker import Worker

    ws = tmp_path / "ws"
    ws.mkdir()
    opened, said = [], []
    monkeypatch.setattr(obsidian, "read_vaults", list)
    monkeypatch.setattr(obsidian, "has_handler", lambda: True)
    monkeypatch.setattr(obsidian, "open_url", lambda url, done=None: opened.append(url) or opens(done, True))
    w = Worker()
    try:
        obsidian.open_in_obsidian(w, ws, said.append)
        qtbot.waitUntil(lambda: bool(said))
    finally:
        w.shutdown()
    assert opened == [ws.as_uri()]
    assert "Open folder as vault" in said[0]


def opens(done, ok: bool) -> bool:
    """What a fake ``open_url`` answers: *ok*, told to *done* too (as the real one does, maybe later)."""
    if done is not None:
        done(ok)
    return ok


@pytest.fixture
def xdg_open(tmp_path, monkeypatch):
    """A real ``xdg-open`` program on PATH that exits with the status written to its file (4: nothing could open
    it, what xdg-open says when no file manager or browser is installed); it logs what it was asked."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    status = tmp_path / "status"
    asked = tmp_path / "asked"
    script = bin_dir / "xdg-open"
    script.write_text(f'#!/bin/sh\necho "$1" >> "{asked}"\nexit $(cat "{status}")\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ.get('PATH', '')}")
    monkeypatch.setattr(obsidian, "show_items", lambda uri, fallback, failed=None: False)   # no session bus
    return status, asked


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xdg-open")
def test_xdg_open_present_but_nothing_opens_folders_says_so(qtbot, xdg_open, tmp_path, monkeypatch):
    """Issue 29, Misleading 6: xdg-open starts (so Qt says yes) but exits 4 — Show in file manager and Open in
    Obsidian say it could not open, with the path, instead of claiming the folder was opened."""
    from botmemory.desktop.worker import Worker

    status, asked = xdg_open
    status.write_text("4")
    ws = tmp_path / "ws"
    ws.mkdir()
    failed, said = [], []
    obsidian.show_in_file_manager(ws / "MEMORY.md", "linux", failed=lambda text, path: failed.append((text, path)))
    qtbot.waitUntil(lambda: bool(failed), timeout=10_000)
    assert failed == [(obsidian.NOTHING_OPENS_FOLDERS, ws / "MEMORY.md")]
    assert asked.read_text().split() == [ws.as_uri()]
    failed.clear()
    monkeypatch.setattr(obsidian, "read_vaults", list)
    monkeypatch.setattr(obsidian, "has_handler", lambda: False)
    w = Worker()
    try:
        obsidian.open_in_obsidian(w, ws, said.append, lambda text, path: failed.append((text, path)))
        qtbot.waitUntil(lambda: bool(failed), timeout=10_000)
    finally:
        w.shutdown()
    (text, path), = failed
    assert path == ws and obsidian.NOTHING_OPENS_FOLDERS in text and "was opened instead" not in text
    assert said == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xdg-open")
def test_a_folder_xdg_open_did_open_is_said_once_it_opened(qtbot, xdg_open, tmp_path):
    status, _asked = xdg_open
    status.write_text("0")
    outcome = []
    assert obsidian.open_url((tmp_path).as_uri(), outcome.append)
    qtbot.waitUntil(lambda: bool(outcome), timeout=10_000)
    assert outcome == [True]
