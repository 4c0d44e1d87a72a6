"""botmemory serve: every route through a real HTTP client against a real server on a loopback port."""
from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from botmemory.core import Actor, ApiServer, Memory, Refused, prefer, token_path
from botmemory.core.disk.safeio import text_hash

from ..conftest import BOT, TODAY, entry


class Opened(list):  # the fake opener: records (target, folder), or fails when told to
    fail = False

    def __call__(self, target: str, folder: Path) -> None:
        if self.fail:
            raise OSError("no file manager")
        self.append((target, folder))


@pytest.fixture
def opened() -> Opened:
    return Opened()


@pytest.fixture
def api(mem: Memory, opened: Opened):
    server = ApiServer(mem, 0, opener=opened).start()
    yield server
    server.stop()


def call(api: ApiServer, method: str, path: str, body: Any = None, *, token: str | None = "", raw: bytes | None = None,
         headers: dict[str, str] | None = None, host: str = "127.0.0.1") -> tuple[int, Any, http.client.HTTPMessage]:
    conn = http.client.HTTPConnection(host, api.port, timeout=30)
    h = dict(headers or {})
    tok = api.token if token == "" else token
    if tok is not None:
        h.setdefault("Authorization", f"Bearer {tok}")
    data = raw
    if body is not None:
        data = json.dumps(body).encode()
    if data is not None:
        h.setdefault("Content-Type", "application/json")
    try:
        conn.request(method, path, body=data, headers=h)
        resp = conn.getresponse()
        payload = resp.read()
        return resp.status, json.loads(payload), resp.headers
    finally:
        conn.close()


def F(rel: str = "") -> str:
    return f"/api/bots/{BOT}/memory" + rel


def rows(mem: Memory) -> list[Any]:
    return mem.journal.list(BOT, limit=100)


# ----- reading


def test_overview_has_the_gauge_topics_logs_and_folder(api: ApiServer, mem: Memory) -> None:
    mem.store.write(BOT, "MEMORY.md", entry(TODAY, "Launch on Friday") + "\n", _person())
    mem.store.write(BOT, "memory/clients.md", "---\ntitle: Clients\naliases: [customers]\n---\nAcme\n", _person())
    mem.store.write(BOT, "memory/log/2026-10-14.md", "did things\n", _person(), allow_log=True)
    status, body, _ = call(api, "GET", F())
    assert status == 200
    assert body["gauge"]["lines"] == 1 and body["gauge"]["max_lines"] == 200 and body["gauge"]["level"] == "ok"
    assert body["topics"] == [{"path": "memory/clients.md", "title": "Clients", "description": None,
                               "aliases": ["customers"]}]
    assert body["logs"] == ["memory/log/2026-10-14.md"]
    assert body["folder"] == str(mem.home.workspace(BOT))


def _person():
    from botmemory.core import Actor

    return Actor.person("cli")


def test_unknown_bot_is_404_and_a_bad_id_400(api: ApiServer) -> None:
    status, body, _ = call(api, "GET", "/api/bots/nobody/memory")
    assert status == 404 and "nobody" in body["error"]
    status, body, _ = call(api, "GET", "/api/bots/..%2Fx/memory")
    assert status == 400 and "bad bot id" in body["error"]


def test_a_file_is_read_with_its_hash(api: ApiServer, mem: Memory) -> None:
    mem.store.write(BOT, "memory/a b.md", "hello\n", _person())
    status, body, _ = call(api, "GET", F("/file?path=memory/a%20b.md"))
    assert status == 200 and body["text"] == "hello\n" and body["hash"] == text_hash("hello\n")
    assert call(api, "GET", F("/file?path=memory/missing.md"))[0] == 404
    assert call(api, "GET", F("/file"))[0] == 400


@pytest.mark.parametrize("path", ["../config.json", "memory/../../x.md", "/etc/passwd", "memory/", "memory",
                                  "memory/log/", "memory/.hidden.md", "memory/sub/x.md"])
def test_no_path_outside_the_memory_files_and_no_listing(api: ApiServer, path: str) -> None:
    from urllib.parse import quote

    status, body, _ = call(api, "GET", F("/file?path=" + quote(path, safe="")))
    assert status == 400 and body["error"].startswith("bad ")


def test_a_linked_file_is_refused(api: ApiServer, mem: Memory, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("outside\n")
    (mem.home.workspace(BOT) / "memory" / "link.md").symlink_to(secret)
    status, body, _ = call(api, "GET", F("/file?path=memory/link.md"))
    assert status == 403 and "symbolic link" in body["error"]
    status, body, _ = call(api, "PUT", F("/file"), {"path": "memory/link.md", "text": "x"})
    assert status == 403 and secret.read_text() == "outside\n"


# ----- saving


def test_save_with_the_hash_then_a_stale_hash_is_409_with_the_current_text(api: ApiServer, mem: Memory) -> None:
    status, body, _ = call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "one\n"})
    assert status == 200 and body["changed"] and body["hash"] == text_hash("one\n")
    first = body["hash"]
    status, body, _ = call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "two\n", "expectedHash": first})
    assert status == 200 and body["hash"] == text_hash("two\n")
    status, body, _ = call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "three\n", "expectedHash": first})
    assert status == 409
    assert body["text"] == "two\n" and body["hash"] == text_hash("two\n") and "changed" in body["error"]
    assert (mem.home.workspace(BOT) / "memory/t.md").read_text() == "two\n"
    r = rows(mem)[0]
    assert (r.who, r.how, r.file) == ("person", "api", "memory/t.md")


def test_save_redacts_and_refuses_a_log_and_bad_bodies(api: ApiServer, mem: Memory) -> None:
    key = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 4
    assert call(api, "PUT", F("/file"), {"path": "MEMORY.md", "text": f"key {key}\n"})[0] == 200
    assert key not in (mem.home.workspace(BOT) / "MEMORY.md").read_text()
    status, body, _ = call(api, "PUT", F("/file"), {"path": "memory/log/2026-10-15.md", "text": "x"})
    assert status == 403 and "daily log" in body["error"]
    assert call(api, "PUT", F("/file"), {"path": "memory/t.md"})[0] == 400
    assert call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": 3})[0] == 400
    assert call(api, "PUT", F("/file"), ["not", "an", "object"])[0] == 400
    status, body, _ = call(api, "PUT", F("/file"), raw=b"{nope")
    assert status == 400 and body["error"].startswith("the body is not valid JSON")
    status, _, _ = call(api, "PUT", F("/file"), raw=b'{"path":"memory/t.md","text":"x"}',
                        headers={"Content-Type": "text/plain"})
    assert status == 415
    assert not (mem.home.workspace(BOT) / "memory/t.md").exists()


def test_the_old_whole_file_put_works_without_a_hash_and_says_it_is_deprecated(api: ApiServer, mem: Memory) -> None:
    mem.store.write(BOT, "MEMORY.md", "the bot's\n", _person())
    status, body, headers = call(api, "PUT", F(), {"text": "mine\n"})
    assert status == 200 and body["changed"]
    assert (mem.home.workspace(BOT) / "MEMORY.md").read_text() == "mine\n"
    assert headers["Deprecation"].startswith("@") and headers["Sunset"].endswith("GMT")
    assert f'</api/bots/{BOT}/memory/file>; rel="successor-version"' == headers["Link"]
    assert rows(mem)[0].how == "api"
    assert call(api, "PUT", F(), {"nothing": 1})[0] == 400


def test_delete_a_topic_but_never_memory_md(api: ApiServer, mem: Memory) -> None:
    mem.store.write(BOT, "memory/t.md", "x\n", _person())
    status, body, _ = call(api, "DELETE", F("/file?path=memory/t.md"))
    assert status == 200 and body == {"path": "memory/t.md", "deleted": True}
    assert not (mem.home.workspace(BOT) / "memory/t.md").exists()
    assert call(api, "DELETE", F("/file?path=memory/t.md"))[0] == 404
    status, body, _ = call(api, "DELETE", F("/file?path=MEMORY.md"))
    assert status == 403 and "never deleted" in body["error"]
    assert (mem.home.workspace(BOT) / "MEMORY.md").exists()


# ----- journal and revert


def test_journal_newest_first_with_a_limit_and_revert(api: ApiServer, mem: Memory) -> None:
    call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "one\n"})
    call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "two\n"})
    status, body, _ = call(api, "GET", F("/journal?limit=1"))
    assert status == 200 and len(body) == 1 and body[0]["diff"].endswith("+two\n") or "+two" in body[0]["diff"]
    assert len(call(api, "GET", F("/journal"))[1]) == 2
    assert "earlier_text" not in body[0]
    assert call(api, "GET", F("/journal?limit=1&full=1"))[1][0]["earlier_text"] == "one\n"
    assert call(api, "GET", F("/journal?full=yes"))[0] == 400
    assert call(api, "GET", F("/journal?limit=-1"))[0] == 400
    assert call(api, "GET", F("/journal?limit=x"))[0] == 400
    newest = body[0]["id"]
    status, body, _ = call(api, "POST", F(f"/journal/{newest}/revert"))
    assert status == 200 and body["changed"] and body["file"] == "memory/t.md"
    assert (mem.home.workspace(BOT) / "memory/t.md").read_text() == "one\n"
    assert rows(mem)[0].how == "undo"
    assert call(api, "POST", F("/journal/0192f3a4b5c6-1a2b3c/revert"))[0] == 404
    assert call(api, "POST", F("/journal/nonsense/revert"))[0] == 404


# ----- open, upkeep, tidy


def test_open_obsidian_or_the_folder(api: ApiServer, mem: Memory, opened: Opened) -> None:
    ws = mem.home.workspace(BOT)
    assert call(api, "POST", F("/open"), {"target": "obsidian"}) [:2] == (200, {"opened": "obsidian", "path": str(ws)})
    assert call(api, "POST", F("/open"), {"target": "folder"})[0] == 200
    assert opened == [("obsidian", ws), ("folder", ws)]
    assert call(api, "POST", F("/open"), {"target": "browser"})[0] == 400
    assert call(api, "POST", F("/open"))[0] == 400
    opened.fail = True
    status, body, _ = call(api, "POST", F("/open"), {"target": "folder"})
    assert status == 502 and body["path"] == str(ws) and "no file manager" in body["error"]


def test_upkeep_state_then_tidy_then_409_when_upkeep_is_off(api: ApiServer, mem: Memory) -> None:
    mem.store.write(BOT, "MEMORY.md", entry("2026-01-01", "Old") + " · until 2026-02-01\n" + entry(TODAY, "New") + "\n",
                    _person())
    status, body, _ = call(api, "GET", F("/upkeep"))
    assert status == 200 and body["on"] is True and body["last_tidy"] is None and body["last_capture"] is None
    assert body["model_steps"] is False and "helper" in body["model_reason"]
    status, body, _ = call(api, "POST", F("/tidy"), {"model": False})
    assert status == 200 and body["expired_moved"] == 1
    status, body, _ = call(api, "GET", F("/upkeep"))
    assert body["last_tidy"]["report"]["expired_moved"] == 1 and body["last_tidy"]["last_run"]
    import json as _json

    from botmemory.core import turn_begin, turn_end
    from botmemory.core.upkeep.capture import capture as capture_now
    from botmemory.core.upkeep.capture_queue import note_turn

    transcript = mem.home.root / "t.jsonl"
    transcript.write_text(_json.dumps({"role": "person", "text": "I'm vegetarian"}) + "\n")
    turn = turn_begin(mem, BOT, "Plans")
    turn_end(mem, BOT, turn)
    note_turn(mem, BOT, turn, "Plans", transcript)
    capture_now(mem, BOT)                                       # no helper: nothing captured, and why
    status, body, _ = call(api, "GET", F("/upkeep"))
    assert "no helper model is set" in body["last_capture"]["report"]["skipped"][0]["reason"]
    from botmemory.core.disk.config import set_bot_setting

    set_bot_setting(mem.home, BOT, "upkeep", False)
    status, body, _ = call(api, "POST", F("/tidy"))
    assert status == 409 and "upkeep is switched off" in body["error"]
    assert call(api, "GET", F("/upkeep"))[1]["on"] is False
    assert call(api, "POST", F("/tidy"), {"model": "no"})[0] == 400


# ----- About me's learned lines


def test_learned_lines_newest_first_and_removed_for_good(api: ApiServer, mem: Memory) -> None:
    mem.home.about_me.write_text("# About me\nI write by hand.\n")
    prefer(mem, BOT, "Reminders go to my task app", Actor.person())
    later = Memory.open(str(mem.home.root), "2026-10-20")
    later.store.init("ledger")   # the operation learns for a bot that exists
    prefer(later, "ledger", "Short replies", Actor.person())
    status, body, _ = call(api, "GET", "/api/profile/learned")
    assert status == 200 and [x["text"] for x in body] == ["Short replies", "Reminders go to my task app"]
    assert body[0]["bot"] == "ledger" and body[0]["date"] == "2026-10-20"
    gone = body[1]["id"]
    status, out, _ = call(api, "POST", f"/api/profile/learned/{gone}/remove")
    assert status == 200 and out["removed"] == gone
    about = mem.home.about_me.read_text()
    assert "task app" not in about and "I write by hand." in about and "Short replies" in about
    assert call(api, "POST", f"/api/profile/learned/{gone}/remove")[0] == 404
    assert [x["text"] for x in call(api, "GET", "/api/profile/learned")[1]] == ["Short replies"]
    with pytest.raises(Refused):  # never added again
        prefer(mem, BOT, "reminders go to my task app.", Actor.person())
    assert "task app" not in mem.home.about_me.read_text()


# ----- who may ask


def test_no_token_or_a_wrong_one_is_401(api: ApiServer) -> None:
    status, body, headers = call(api, "GET", F(), token=None)
    assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer") and "api-token" in body["error"]
    assert call(api, "GET", F(), token="x" * 43)[0] == 401
    assert call(api, "GET", F(), token=api.token[:-1])[0] == 401
    assert call(api, "GET", F(), token=None, headers={"Authorization": f"Basic {api.token}"})[0] == 401


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "localhost:1", "127.0.0.2:{port}",
                                  "localhost.evil.example:{port}", ""])
def test_a_foreign_host_is_403(api: ApiServer, mem: Memory, host: str) -> None:
    status, body, _ = call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "x"},
                           headers={"Host": host.format(port=api.port)})
    assert status == 403 and "Host" in body["error"]
    assert not (mem.home.workspace(BOT) / "memory/t.md").exists()


def test_a_second_host_header_is_403_even_after_a_loopback_one(api: ApiServer, mem: Memory) -> None:
    body = json.dumps({"path": "memory/t.md", "text": "x"}).encode()
    with socket.create_connection(("127.0.0.1", api.port), timeout=30) as s:
        s.sendall(f"PUT {F('/file')} HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\nHost: evil.example\r\n"
                  f"Authorization: Bearer {api.token}\r\nContent-Type: application/json\r\n"
                  f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        answer = s.makefile("rb").read()
    head, _, rest = answer.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == b"403" and "Host" in json.loads(rest)["error"]
    assert not (mem.home.workspace(BOT) / "memory/t.md").exists()


@pytest.mark.parametrize("host", ["localhost:{port}", "127.0.0.1:{port}", "[::1]:{port}", "LOCALHOST:{port}"])
def test_loopback_hosts_are_fine(api: ApiServer, host: str) -> None:
    assert call(api, "GET", F(), headers={"Host": host.format(port=api.port)})[0] == 200


@pytest.mark.parametrize("header", [{"Origin": "https://evil.example"}, {"Origin": "http://localhost"},
                                    {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"},
                                    {"Sec-Fetch-Site": "same-origin"}])
def test_a_web_page_is_403_even_with_the_token(api: ApiServer, mem: Memory, header: dict[str, str]) -> None:
    status, body, _ = call(api, "DELETE", F("/file?path=memory/t.md"), headers=header)
    assert status == 403 and "web pages" in body["error"]


def test_only_loopback_addresses_are_bound(api: ApiServer) -> None:
    assert api.addresses and all(a.rsplit(":", 1)[0] in ("127.0.0.1", "[::1]") for a in api.addresses)
    hosts = {s.server_address[0] for s in api._servers}
    assert hosts <= {"127.0.0.1", "::1"}


def test_an_oversized_body_is_413_and_nothing_is_written(api: ApiServer, mem: Memory) -> None:
    with socket.create_connection(("127.0.0.1", api.port), timeout=30) as s:
        s.sendall((f"PUT {F('/file')} HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\n"
                   f"Authorization: Bearer {api.token}\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {3 * 1024 * 1024}\r\n\r\n").encode())
        s.sendall(b'{"path": "memory/t.md", "text": "' + b"x" * 4096)
        answer = s.makefile("rb").read()
    assert answer.split(b"\r\n", 1)[0].endswith(b"413 Request Entity Too Large")
    assert b'"error"' in answer
    assert not (mem.home.workspace(BOT) / "memory/t.md").exists()


def test_a_chunked_body_is_411(api: ApiServer) -> None:
    assert call(api, "PUT", F("/file"), headers={"Transfer-Encoding": "chunked"}, raw=None)[0] == 411


def test_unknown_route_404_and_wrong_method_405(api: ApiServer) -> None:
    status, body, _ = call(api, "GET", "/")
    assert status == 404 and body == {"error": "no such route"}
    assert call(api, "GET", "/api/bots")[0] == 404
    status, body, headers = call(api, "POST", F("/file"), {})
    assert status == 405 and headers["Allow"] == "DELETE, GET, PUT" and "error" in body


def test_a_client_leaving_mid_request_leaves_the_server_working(api: ApiServer, mem: Memory) -> None:
    for cut in (b"PUT " + F("/file").encode(), b"", b'{"path": "memory/t.md"'):
        with socket.create_connection(("127.0.0.1", api.port), timeout=30) as s:
            if cut == b"":
                cut = (f"PUT {F('/file')} HTTP/1.1\r\nHost: localhost:{api.port}\r\n").encode()
            elif cut.startswith(b"{"):
                cut = (f"PUT {F('/file')} HTTP/1.1\r\nHost: localhost:{api.port}\r\nAuthorization: Bearer {api.token}\r\n"
                       f"Content-Type: application/json\r\nContent-Length: 500\r\n\r\n").encode() + cut
            s.sendall(cut)
            s.shutdown(socket.SHUT_WR)
    with socket.create_connection(("127.0.0.1", api.port), timeout=30) as s:  # asks, and leaves before the answer
        s.sendall((f"GET {F()} HTTP/1.1\r\nHost: localhost:{api.port}\r\nAuthorization: Bearer {api.token}\r\n\r\n").encode())
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    assert not (mem.home.workspace(BOT) / "memory/t.md").exists()
    assert call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "fine\n"})[0] == 200


def test_eight_clients_saving_one_file_with_its_hash_one_wins_none_lost(api: ApiServer, mem: Memory) -> None:
    mem.store.write(BOT, "memory/t.md", "start\n", _person())
    opened_hash = text_hash("start\n")
    results: dict[int, tuple[int, Any]] = {}
    go = threading.Barrier(8)

    def client(i: int) -> None:
        go.wait()
        status, body, _ = call(api, "PUT", F("/file"),
                               {"path": "memory/t.md", "text": f"draft {i}\n", "expectedHash": opened_hash})
        results[i] = (status, body)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [i for i, (s, _) in results.items() if s == 200]
    assert len(winners) == 1 and sorted(s for s, _ in results.values()) == [200] + [409] * 7
    final = (mem.home.workspace(BOT) / "memory/t.md").read_text()
    assert final == f"draft {winners[0]}\n"
    for _i, (s, body) in results.items():  # every loser was handed the text that won, to merge its draft with
        if s == 409:
            assert body["text"] == final and body["hash"] == text_hash(final)
    api_rows = [r for r in rows(mem) if r.how == "api"]
    assert len(api_rows) == 1 and "start" in (api_rows[0].earlier_text or "")


# ----- the token


def test_the_token_is_0600_kept_and_never_read_through_a_link(mem: Memory, tmp_path: Path) -> None:
    a = ApiServer(mem, 0, opener=Opened()).start()
    a.stop()
    path = token_path(mem.home)
    assert path.stat().st_mode & 0o777 == 0o600 and path.read_text().strip() == a.token and len(a.token) >= 40
    b = ApiServer(mem, 0, opener=Opened()).start()
    b.stop()
    assert b.token == a.token
    path.unlink()
    (tmp_path / "planted").write_text("x" * 50 + "\n")
    path.symlink_to(tmp_path / "planted")
    with pytest.raises(Refused):
        ApiServer(mem, 0, opener=Opened()).start()


def test_a_port_in_use_is_a_clear_error(api: ApiServer, mem: Memory) -> None:
    from botmemory.core import BadInput

    with pytest.raises(BadInput, match="cannot listen on 127.0.0.1"):
        ApiServer(mem, api.port, opener=Opened()).start()


# ----- the command


def test_botmemory_serve_prints_the_token_answers_and_stops_on_sigterm(mem: Memory) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(mem.home.root), "serve",
                             "--port", "0", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert proc.stdout is not None
        info = json.loads(proc.stdout.readline())
        assert info["token"] == token_path(mem.home).read_text().strip()
        conn = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=30)
        conn.request("GET", F(), headers={"Authorization": f"Bearer {info['token']}"})
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err


def test_botmemory_serve_refuses_a_bad_port(mem: Memory) -> None:
    out = subprocess.run([sys.executable, "-m", "botmemory.core.faces.cli", "--root", str(mem.home.root), "serve",
                          "--port", "70000"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "bad port 70000" in out.stderr


def test_the_cli_default_port_is_the_servers() -> None:
    from botmemory.core import SERVE_PORT
    from botmemory.core.faces.cli import DEFAULT_PORT

    assert DEFAULT_PORT == SERVE_PORT


def test_prefer_of_a_removed_fact_exits_4(mem: Memory, capsys) -> None:
    from botmemory.core import learned, remove_learned
    from botmemory.core.faces.cli import main

    prefer(mem, BOT, "Short replies", Actor.person())
    remove_learned(mem, learned(mem)[0].id)
    assert main(["--root", str(mem.home.root), "prefer", BOT, "short replies"]) == 4
    assert "removed from About me" in capsys.readouterr().err
    assert learned(mem) == []


def test_secrets_sent_to_the_routes_never_reach_a_byte_outside_the_workspace(api: ApiServer, mem: Memory) -> None:
    from .test_secrets_everywhere import every_byte, ghp, password, sk

    planted = {"put": sk("api put"), "old put": ghp("api old put"), "conflict": password("api conflict")[1],
               "prefer": password("api prefer")[1]}
    status, body, _ = call(api, "PUT", F("/file"), {"path": "memory/keys.md", "text": f"# Keys\n- deploy {planted['put']}\n"})
    assert status == 200
    assert call(api, "PUT", F(), {"text": f"- 2026-01-02 · from cli · token {planted['old put']} · until 2026-02-01\n"})[0] == 200
    status, _, _ = call(api, "PUT", F("/file"), {"path": "memory/keys.md", "text": f"password: {planted['conflict']}\n",
                                                  "expectedHash": "0" * 64})
    assert status == 409
    prefer(mem, BOT, f"likes short answers, password: {planted['prefer']}", Actor.person())
    assert call(api, "GET", "/api/profile/learned")[0] == 200
    assert call(api, "POST", F("/tidy"), {"model": False})[0] == 200
    newest = call(api, "GET", F("/journal?limit=1"))[1][0]["id"]
    assert call(api, "POST", F(f"/journal/{newest}/revert"))[0] == 200
    found = {(where, str(p)) for p, data in every_byte(mem.home.root).items() if p != token_path(mem.home)
             for where, needle in planted.items() if needle.encode() in data}
    assert found == set()
    ws = mem.home.workspace(BOT)
    assert not any(n.encode() in p.read_bytes() for p in ws.rglob("*.md") for n in planted.values())


def test_a_server_without_a_fixed_date_follows_the_calendar(mem: Memory) -> None:
    from datetime import date

    assert mem.today.isoformat() == TODAY != date.today().isoformat()
    a = ApiServer(mem, 0, opener=Opened(), follow_date=True).start()
    try:
        assert call(a, "GET", F())[0] == 200
    finally:
        a.stop()
    assert mem.today == date.today()


@pytest.mark.parametrize("line, code", [(b"FOO / HTTP/1.0", 501), (b"GET /" + b"a" * 70000 + b" HTTP/1.0", 414),
                                        (b"nonsense", 400)])
def test_the_http_layers_own_refusals_are_json_too(api: ApiServer, line: bytes, code: int) -> None:
    with socket.create_connection(("127.0.0.1", api.port), timeout=30) as s:
        s.sendall(line + b"\r\n\r\n")
        answer = s.makefile("rb").read()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == str(code).encode() and b"application/json" in head
    assert "error" in json.loads(body)


def test_at_most_max_clients_requests_run_at_once(mem: Memory, monkeypatch) -> None:
    """Requests past MAX_CLIENTS wait for a slot; connections that only wait for a request hold none."""
    from botmemory.core.faces import routes
    from botmemory.core.faces import server as srv

    monkeypatch.setattr(srv, "MAX_CLIENTS", 2)
    gate = threading.Event()
    running: list[str] = []
    real = routes.dispatch

    def slow_dispatch(*args: Any, **kw: Any) -> Any:
        running.append(args[2])
        gate.wait(30)
        return real(*args, **kw)

    monkeypatch.setattr(routes, "dispatch", slow_dispatch)
    a = ApiServer(mem, 0, opener=Opened()).start()
    idle = [socket.create_connection(("127.0.0.1", a.port), timeout=30) for _ in range(4)]  # say nothing
    answered: list[int] = []
    ts = [threading.Thread(target=lambda: answered.append(call(a, "GET", F())[0])) for _ in range(3)]
    try:
        for t in ts:
            t.start()
        deadline = time.monotonic() + 30
        while len(running) < 2:       # two run although four idle connections are open
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(0.3)
        assert len(running) == 2 and answered == []   # the third waits for a slot
        gate.set()
        for t in ts:
            t.join()
        assert answered == [200, 200, 200] and len(running) == 3
    finally:
        gate.set()
        for s in idle:
            s.close()
        a.stop()


def test_a_taken_ipv6_loopback_port_is_refused_not_skipped(mem: Memory) -> None:
    try:
        holder = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        holder.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    holder.listen()
    port = holder.getsockname()[1]
    try:
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            pytest.skip("that port is taken on 127.0.0.1 too")
        finally:
            probe.close()
        from botmemory.core import BadInput

        with pytest.raises(BadInput, match=r"\[::1\].*another program"):
            ApiServer(mem, port, opener=Opened()).start()
        with pytest.raises(ConnectionRefusedError):  # and 127.0.0.1 was let go again
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    finally:
        holder.close()


def test_a_tracked_claude_code_folder_is_served_by_its_kind(mem: Memory, tmp_path: Path) -> None:
    from botmemory.core import track

    from ..agent_fixtures import claude_code

    folder = claude_code(tmp_path / "user")
    t = track(mem, path=str(folder), agent="claude-code")
    a = ApiServer(Memory.open(str(mem.home.root), TODAY), 0, opener=Opened()).start()
    try:
        base = f"/api/bots/{t.id}/memory"
        status, body, _ = call(a, "GET", base)
        assert status == 200 and body["agent"] == "claude-code" and body["folder"] == str(folder)
        assert body["gauge"]["max_bytes"] == 25000 and body["heavy"] is None
        assert [x["path"] for x in body["topics"]] == ["project_blog.md", "user_role.md"]
        status, body, _ = call(a, "GET", base + "/file?path=user_role.md")
        assert status == 200 and "terse" in body["text"]
        status, _, _ = call(a, "PUT", base + "/file", {"path": "user_role.md", "text": "Staff engineer.\n",
                                                       "expectedHash": body["hash"]})
        assert status == 200 and (folder / "user_role.md").read_text() == "Staff engineer.\n"
        status, body, _ = call(a, "POST", base + "/tidy")
        assert status == 409 and "does not apply" in body["error"]
    finally:
        a.stop()


def test_removing_a_learned_line_never_overwrites_a_damaged_profile_learned(api: ApiServer, mem: Memory) -> None:
    prefer(mem, BOT, "Short replies", Actor.person())
    mem.home.profile_learned.write_text("{ not json")
    about = mem.home.about_me.read_text()
    line_id = call(api, "GET", "/api/profile/learned")[1][0]["id"]
    status, body, _ = call(api, "POST", f"/api/profile/learned/{line_id}/remove")
    assert status == 400 and "profile-learned.json" in body["error"]
    assert mem.home.profile_learned.read_text() == "{ not json" and mem.home.about_me.read_text() == about


# ----- hostile clients (issue 23)


def raw(api: ApiServer, data: bytes) -> tuple[int, dict[str, str], Any]:
    """Send *data* as it is on a new connection; the status, the headers and the JSON body of the answer."""
    with socket.create_connection(("127.0.0.1", api.port), timeout=30) as s:
        s.sendall(data)
        answer = s.makefile("rb").read()
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    return int(lines[0].split(" ")[1]), headers, json.loads(body) if body else None


def _head(api: ApiServer, method: str, target: str, *extra: str, host: str = "", body: bytes = b"") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host or f'127.0.0.1:{api.port}'}",
             f"Authorization: Bearer {api.token}", "Connection: close", *extra]
    if body:
        lines += ["Content-Type: application/json"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def test_a_token_file_others_can_read_is_replaced_by_a_new_0600_one(mem: Memory, caplog) -> None:
    a = ApiServer(mem, 0, opener=Opened()).start()
    a.stop()
    path = token_path(mem.home)
    for mode in (0o644, 0o640, 0o604, 0o660):
        os.chmod(path, mode)
        old = path.read_text().strip()
        b = ApiServer(mem, 0, opener=Opened()).start()
        b.stop()
        assert path.stat().st_mode & 0o777 == 0o600
        assert b.token != old and path.read_text().strip() == b.token   # it may have been read: a new one
        assert f"{mode:o}" in caplog.text and "new token" in caplog.text
        caplog.clear()
    for mode in (0o700, 0o400):      # nobody else could read it: the mode is set back, the token kept
        os.chmod(path, mode)
        c = ApiServer(mem, 0, opener=Opened()).start()
        c.stop()
        assert path.stat().st_mode & 0o777 == 0o600 and c.token == b.token
        assert f"had mode {mode:o}: set back to 600" in caplog.text
        caplog.clear()
    d = ApiServer(mem, 0, opener=Opened()).start()   # a 0600 one is kept as it is, without a word
    d.stop()
    assert d.token == b.token and caplog.text == ""


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]", "LOCALHOST"])
def test_a_loopback_host_without_the_port_is_403(api: ApiServer, host: str) -> None:
    status, body, _ = call(api, "GET", F(), headers={"Host": host})
    assert status == 403 and "Host" in body["error"]


def test_two_content_length_headers_are_400_and_nothing_is_written(api: ApiServer, mem: Memory) -> None:
    body = json.dumps({"path": "memory/t.md", "text": "x"}).encode()
    for second in (len(body), len(body) + 5):
        status, _, answer = raw(api, _head(api, "PUT", F("/file"), f"Content-Length: {len(body)}",
                                           f"Content-Length: {second}", body=body))
        assert status == 400 and "Content-Length" in answer["error"]
    status, _, answer = raw(api, _head(api, "PUT", F("/file"), "Content-Length: ²", body=body))
    assert status == 400 and "Content-Length" in answer["error"]
    assert not (mem.home.workspace(BOT) / "memory/t.md").exists()


@pytest.mark.parametrize("target", ["http://evil.example/api/bots/{bot}/memory",
                                    "http://evil.example:{port}/api/bots/{bot}/memory",
                                    "http://127.0.0.2:{port}/api/bots/{bot}/memory",
                                    "https://localhost/api/bots/{bot}/memory", "evil.example:80", "*"])
def test_an_absolute_target_naming_another_host_is_400(api: ApiServer, target: str) -> None:
    status, _, answer = raw(api, _head(api, "GET", target.format(bot=BOT, port=api.port)))
    assert status == 400 and "error" in answer


def test_an_absolute_target_naming_this_server_is_served(api: ApiServer) -> None:
    status, _, answer = raw(api, _head(api, "GET", f"http://localhost:{api.port}/api/bots/{BOT}/memory"))
    assert status == 200 and answer["bot"] == BOT


def test_a_path_starting_with_two_slashes_is_a_path_not_a_host(api: ApiServer) -> None:
    status, _, answer = raw(api, _head(api, "GET", f"//evil.example/api/bots/{BOT}/memory"))
    assert status == 404 and answer == {"error": "no such route"}


def test_reads_carry_an_etag_and_if_match_is_honoured(api: ApiServer, mem: Memory) -> None:
    mem.store.write(BOT, "memory/t.md", "one\n", _person())
    TWO = text_hash("two\n")
    status, body, headers = call(api, "GET", F("/file?path=memory/t.md"))
    assert status == 200 and headers["ETag"] == f'"{body["hash"]}"'
    etag = headers["ETag"]
    status, body, headers = call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "two\n"},
                                 headers={"If-Match": etag})
    assert status == 200 and headers["ETag"] == f'"{TWO}"'
    status, body, headers = call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "three\n"},
                                 headers={"If-Match": etag})   # stale: the file is "two" now
    assert status == 412 and body["text"] == "two\n" and body["hash"] == TWO
    assert headers["ETag"] == f'"{TWO}"'
    assert call(api, "DELETE", F("/file?path=memory/t.md"), headers={"If-Match": etag})[0] == 412
    assert call(api, "PUT", F("/file"), {"path": "memory/new.md", "text": "x\n"}, headers={"If-Match": "*"})[0] == 412
    assert (mem.home.workspace(BOT) / "memory/t.md").read_text() == "two\n"
    assert not (mem.home.workspace(BOT) / "memory/new.md").exists()
    for bad in ('"nothex"', "W/", '"' + "a" * 64 + '", "' + "b" * 64 + '"'):
        status, body, _ = call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "x\n"}, headers={"If-Match": bad})
        assert status == 400 and "If-Match" in body["error"]
    status, body, _ = call(api, "PUT", F("/file"), {"path": "memory/t.md", "text": "x\n", "expectedHash": "0" * 64},
                           headers={"If-Match": f'"{TWO}"'})
    assert status == 400 and "If-Match" in body["error"] and "expectedHash" in body["error"]
    status, _, _ = call(api, "DELETE", F("/file?path=memory/t.md"), headers={"If-Match": f'"{TWO}"'})
    assert status == 200 and not (mem.home.workspace(BOT) / "memory/t.md").exists()


@pytest.mark.parametrize("method, path, body", [
    ("GET", "/journal?limit=%C2%B2", None), ("GET", "/journal?limit=%EF%BC%91", None), ("GET", "/journal?limit=-1", None),
    ("GET", "/file?path=memory/%ED%A0%80.md", None), ("GET", "/file?path=memory/%FF.md", None),
    ("PUT", "/file", {"path": "memory/t.md", "text": "lone \ud800 surrogate"}),
    ("PUT", "/file", {"path": "memory/\udfff.md", "text": "x"}),
    ("PUT", "", {"text": "\ud83d"}),
    ("PUT", "/file", {"path": "memory/t.md", "text": "x", "expectedHash": "zzz"}),
    ("DELETE", "/file?path=memory/t.md&expectedHash=zzz", None),
    ("POST", "/tidy", {"model": "\ud800"}),
])
def test_bad_input_is_400_never_500(api: ApiServer, mem: Memory, method: str, path: str, body: Any) -> None:
    mem.store.write(BOT, "memory/t.md", "kept\n", _person())
    data = None if body is None else json.dumps(body).encode()   # json.dumps writes a lone surrogate as \\ud800
    status, answer, _ = call(api, method, F(path), raw=data)
    assert status == 400, answer
    assert answer["error"] and "unexpected" not in answer["error"]
    assert (mem.home.workspace(BOT) / "memory/t.md").read_text() == "kept\n"


def _trickle(api: ApiServer, stop: threading.Event, every: float, closed: list[float]) -> None:
    """A slow client: the request line, then one header line every *every* seconds until the server closes."""
    try:
        with socket.create_connection(("127.0.0.1", api.port), timeout=60) as s:
            s.sendall(f"GET {F()} HTTP/1.1\r\n".encode())
            n = 0
            while not stop.is_set():
                s.settimeout(every)
                try:
                    if s.recv(4096) == b"":
                        break
                    break             # an answer (408) and then the close
                except TimeoutError:
                    pass
                n += 1
                s.sendall(f"X-Slow-{n}: {n}\r\n".encode())
    except OSError:
        pass
    closed.append(time.monotonic())


def test_slow_clients_time_out_and_never_starve_the_owner(mem: Memory, monkeypatch) -> None:
    from botmemory.core.faces import server as srv

    monkeypatch.setattr(srv, "HEADER_TIMEOUT_S", 2.0)
    a = ApiServer(mem, 0, opener=Opened()).start()
    stop = threading.Event()
    closed: list[float] = []
    slow = [threading.Thread(target=_trickle, args=(a, stop, 0.3, closed)) for _ in range(2 * srv.MAX_CLIENTS)]
    try:
        for t in slow:
            t.start()
        time.sleep(0.5)               # every slow client is connected and trickling
        conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=10)   # the owner
        conn.request("GET", F(), headers={"Authorization": f"Bearer {a.token}"})
        assert conn.getresponse().status == 200
        conn.close()
        for t in slow:                # the server closed each of them (the test would hang otherwise: 60 s)
            t.join(30)
        assert len(closed) == len(slow)
    finally:
        stop.set()
        for t in slow:
            t.join()
        a.stop()


def test_a_header_timeout_answers_408(mem: Memory, monkeypatch) -> None:
    from botmemory.core.faces import server as srv

    monkeypatch.setattr(srv, "HEADER_TIMEOUT_S", 1.0)
    a = ApiServer(mem, 0, opener=Opened()).start()
    try:
        with socket.create_connection(("127.0.0.1", a.port), timeout=30) as s:
            s.sendall(f"GET {F()} HTTP/1.1\r\nHost: 127.0.0.1:{a.port}\r\n".encode())
            answer = s.makefile("rb").read()     # nothing more is sent: the server gives up and closes
        assert answer.startswith(b"HTTP/1.") and b" 408 " in answer.split(b"\r\n")[0]
    finally:
        a.stop()


def test_a_body_trickled_too_slowly_is_408_and_nothing_is_written(mem: Memory, monkeypatch) -> None:
    from botmemory.core.faces import server as srv

    monkeypatch.setattr(srv, "BODY_TIMEOUT_S", 1.0)
    a = ApiServer(mem, 0, opener=Opened()).start()
    body = json.dumps({"path": "memory/t.md", "text": "x"}).encode()
    try:
        with socket.create_connection(("127.0.0.1", a.port), timeout=30) as s:
            s.sendall(_head(a, "PUT", F("/file"), f"Content-Length: {len(body)}", body=b"")[:-2]
                      + b"Content-Type: application/json\r\n\r\n")
            answer = b""
            for byte in body:         # one byte every 0.3 s: 2 MB would take a week
                try:
                    s.sendall(bytes([byte]))
                except OSError:
                    break
                s.settimeout(0.3)
                try:
                    answer = s.recv(4096)
                    break
                except TimeoutError:
                    pass
        assert b" 408 " in answer.split(b"\r\n")[0]
    finally:
        a.stop()
    assert not (mem.home.workspace(BOT) / "memory/t.md").exists()


def test_connections_per_client_are_capped_oldest_waiting_one_dropped(mem: Memory, monkeypatch) -> None:
    from botmemory.core.faces import server as srv

    monkeypatch.setattr(srv, "MAX_WAITING_PER_CLIENT", 4)
    a = ApiServer(mem, 0, opener=Opened()).start()
    idle = []
    try:
        for _ in range(10):           # each says half a request line and waits
            s = socket.create_connection(("127.0.0.1", a.port), timeout=30)
            s.sendall(b"GE")
            idle.append(s)
            time.sleep(0.05)
        for s in idle[:6]:            # the six oldest were let go to make room
            assert s.recv(4096) == b""
        for s in idle[6:]:
            s.setblocking(False)
            with pytest.raises(BlockingIOError):
                s.recv(4096)
        assert call(a, "GET", F())[0] == 200    # and the owner is served
    finally:
        for s in idle:
            s.close()
        a.stop()
