"""The recent-work brief: the newest thing a bot said in each of its other conversations, today and yesterday."""
from __future__ import annotations

import json
from datetime import date

import pytest

from botmemory.core import ops
from botmemory.core.brief.recent import MAX_CHARS, MAX_LINES, compose, parse_log
from botmemory.core.faces.cli import main

from ...conftest import BOT
from ...conftest import TODAY as TODAY_TEXT

TODAY = date.fromisoformat(TODAY_TEXT)
YESTERDAY = date.fromordinal(TODAY.toordinal() - 1)


def turn(mem, chat: str, said: str, *, room: bool = False, today: date = TODAY) -> None:
    m = ops.Memory.open(str(mem.home.root), today.isoformat())
    tid = ops.turn_begin(m, BOT, chat)
    ops.turn_end(m, BOT, tid, said, room=room)


def test_each_other_conversation_once_newest_first_the_current_one_left_out(mem):
    turn(mem, "Invoices", "Asked Milind for the March invoices.", today=YESTERDAY)
    turn(mem, "Invoices", "Sent the three flagged invoices to Milind.")
    turn(mem, "Standup", "Nothing blocking today.")
    turn(mem, "Launch", "The launch moved to Friday.", room=True)
    b = ops.brief(mem, BOT, "Standup")
    assert [(s.chat, s.kind) for s in b.lines] == [("Launch", "room"), ("Invoices", "1:1")]
    assert "Sent the three flagged invoices" in b.text and "March invoices" not in b.text
    assert "Standup" not in b.text
    assert b.text.splitlines()[2].startswith("- today ") and ' · 1:1 · "Invoices" · you said: "' in b.text


def test_yesterday_counts_and_the_day_before_does_not(mem):
    turn(mem, "Old", "Filed the old report.", today=date.fromordinal(TODAY.toordinal() - 2))
    turn(mem, "Recent", "Booked the venue.", today=YESTERDAY)
    b = ops.brief(mem, BOT)
    assert [s.chat for s in b.lines] == ["Recent"] and "- yesterday " in b.text


def test_at_most_ten_lines_and_about_350_tokens(mem):
    for i in range(14):
        turn(mem, f"Chat {i:02d}", "A long answer about the quarterly plan and its many parts. " * 6)
    b = ops.brief(mem, BOT)
    assert 0 < len(b.lines) <= MAX_LINES and len(b.text) <= MAX_CHARS


def test_a_room_is_told_once_per_private_chat_it_names(mem):
    turn(mem, "Launch", "Posted the agenda.", room=True)
    turn(mem, "Priya", "Drafted the reply to the landlord.")
    turn(mem, "Priya", "Sent it.")
    assert ops.brief(mem, BOT, "Launch").chips == ["Priya"]        # the current chat is known to be a room
    assert ops.brief(mem, BOT, "Somewhere").chips == []            # a 1:1: no chips
    assert ops.brief(mem, BOT, "New room", room=True).chips == ["Priya"]


def test_a_credential_typed_into_a_log_by_hand_is_redacted_in_the_brief(mem, ws):
    key = "sk-proj-Zr4Kq9Lm2Xv8Tb3Nw6Hy1Pc5Df7Gj0Rs4Ue8Ia2Ok6Vl9Mz"
    (ws / "memory" / "log").mkdir(parents=True, exist_ok=True)
    (ws / "memory" / "log" / f"{TODAY.isoformat()}.md").write_text(
        f'- 09:05 · chat "Deploy" · the key is {key}\n', encoding="utf-8")
    b = ops.brief(mem, BOT)
    assert key not in b.text and "«redacted" in b.text


def test_memory_off_or_a_tracked_folder_gives_no_brief(mem):
    turn(mem, "Invoices", "Sent them.")
    ops.settings(mem, BOT, "memory", "off")
    assert ops.brief(mem, BOT).lines == []


def test_log_lines_with_tools_failures_and_quotes_parse_back():
    text = ('- 09:05 · chat "A · B" · said · with dots · tools: mail, web · failed\n'
            "a hand-written note\n"
            '- 10:00 · room "R" · (said nothing)\n')
    got = list(parse_log(text, TODAY))
    assert [(s.chat, s.said, s.failed, s.kind) for s in got] == [
        ("A · B", "said · with dots", True, "1:1"), ("R", "", False, "room")]
    assert "you said nothing" in compose(got, TODAY).text


@pytest.mark.parametrize("args", [[], ["--chat", "Standup"]])
def test_the_cli_prints_the_contract(mem, capsys, args):
    turn(mem, "Invoices", "Sent the three flagged invoices to Milind.")
    assert main(["--root", str(mem.home.root), "--today", TODAY.isoformat(), "brief", BOT, "--json", *args]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) == {"lines", "chips", "text"} and set(d["lines"][0]) == {"at", "chat", "kind", "said"}
    assert d["lines"][0]["at"].startswith(TODAY.isoformat() + "T")


def test_memory_load_over_mcp_carries_the_brief(mem):
    from ..faces.test_mcp_server import calls

    turn(mem, "Invoices", "Sent the three flagged invoices to Milind.")
    err, text = calls(mem, ("memory_load", {"chat": "Standup"}))[0]
    assert not err and "Sent the three flagged invoices" in text
    err, text = calls(mem, ("memory_load", {"chat": "Invoices"}))[0]
    assert "Sent the three flagged invoices" not in text
