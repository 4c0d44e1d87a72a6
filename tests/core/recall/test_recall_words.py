"""Recall's word rules: Snowball stems, rarity-weighted ranking, names, one topic's share, Chinese and
Japanese by character bigrams (recall, search, forget and journal --grep), and an index with no secret."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from botmemory.core.disk.paths import Home
from botmemory.core.recall import build as B
from botmemory.core.recall import index as I
from botmemory.core.recall import query as R
from botmemory.core.recall.passages import _Key
from botmemory.core.recall.query import content_words, recall
from botmemory.core.recall.search import search
from botmemory.core.store.writer import Actor, Store
from botmemory.core.text.entries import whole_word
from botmemory.core.text.words import bigrams, guess_language, tokens
from tests.core.recall_fixtures import BOT, TODAY, entry, home, ws  # noqa: F401 - home, ws: fixtures

# Real text: Debian's Japanese manual page of gzip (manpages-ja) and Chinese pages of ls, cp, mv (manpages-zh).
GZIP_JA = ("gzip コマンドは Lempel-Ziv コーディング (LZ77) を利用して、 指定されたファイルのサイズを削減します。"
           " 各ファイルは拡張子 .gz をつけたファイルに置き換えられ、 所有権、 アクセス時刻、 修正時刻は保持されます。")
DF_JA = "df は、ファイル名引き数で指定したファイルを含むファイルシステムで利用可能なディスク容量を表示する。"
LS_ZH = "列出指定“文件”（默认为当前目录）的信息。如果既没有指定 -cftuvSUX 中任何一个，也没有指定 --sort，则按字母排序项目。"
CP_ZH = "cp - 复制文件和目录。将来源复制到目标，或将多个来源复制到目录。"
MV_ZH = "mv - 移动（重命名）文件。将来源重命名为目标，或将来源移动至目录。"


def put(ws: Path, rel: str, text: str) -> Path:
    p = ws / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def files(r: R.RecallResult) -> list[str]:
    return [n.file for n in r.notes]


# ----- word forms and weights


def test_word_forms_meet_through_their_stem(home: Home, ws: Path) -> None:
    put(ws, "memory/devices.md", "Syncing between the laptop and the phone runs every night.\n")
    put(ws, "memory/other.md", "The laptop battery was replaced in May.\n\nThe phone case is blue.\n")
    assert files(recall(home, BOT, "Is my vault synced yet?", TODAY)) == ["memory/devices.md"]
    assert files(recall(home, BOT, "how does sync work", TODAY)) == ["memory/devices.md"]


def test_whole_words_still_only(home: Home, ws: Path) -> None:
    put(ws, "memory/health.md", entry("2026-09-10", "Dentist appointment on Monday") + "\n")
    assert recall(home, BOT, "Standup times in IST?", TODAY).notes == []


def test_a_rare_word_counts_more_than_a_common_one(home: Home, ws: Path) -> None:
    """The issue's case: four passages share "write"; the one on callouts is the answer."""
    for i in range(6):
        put(ws, f"memory/writing-{i}.md", f"You can write notes in markdown and write them fast, file {i}.\n")
    put(ws, "memory/formatting.md", "Callouts are boxes that stand out from the text around them.\n")
    r = recall(home, BOT, "What are callouts and how do I write one?", TODAY)
    assert r.notes[0].file == "memory/formatting.md"


def test_a_topic_whose_name_matches_ranks_above_an_equal_passage(home: Home, ws: Path) -> None:
    put(ws, "memory/a-misc.md", "Create one each morning from the template.\n")
    put(ws, "memory/Daily notes.md", "Create one each morning from the template.\n")
    put(ws, "memory/z-misc.md", "Create one each morning from the template.\n")
    r = recall(home, BOT, "How do I create a daily note every morning?", TODAY)
    assert r.notes[0].file == "memory/Daily notes.md"


def test_dates_break_ties_only_between_equal_scores(home: Home, ws: Path) -> None:
    put(ws, "memory/a.md", entry("2026-01-01", "Zanzibar ferry leaves from pier three") + "\n")
    put(ws, "memory/b.md", entry("2026-09-01", "Ferry tickets are in the drawer") + "\n")
    put(ws, "memory/c.md", entry("2026-08-01", "Zanzibar ferry timetable changed again") + "\n")
    # "zanzibar" is rarer than "ferry": both Zanzibar notes first, the newer of the two equals first
    r = recall(home, BOT, "When does the Zanzibar ferry go?", TODAY)
    assert files(r) == ["memory/c.md", "memory/a.md", "memory/b.md"]


def test_at_most_two_notes_from_one_topic_unless_no_other_topic_matches(home: Home, ws: Path) -> None:
    put(ws, "memory/big.md", "\n".join(entry(f"2026-09-{d:02d}", f"Lisbon hotel note {d}") for d in range(1, 9)) + "\n")
    put(ws, "memory/small.md", entry("2026-01-01", "Lisbon hotel breakfast at seven, a long note about it") + "\n")
    r = recall(home, BOT, "Lisbon hotel?", TODAY)
    assert sorted(files(r)) == ["memory/big.md", "memory/big.md", "memory/small.md"]
    os.unlink(ws / "memory/small.md")
    assert files(recall(home, BOT, "Lisbon hotel?", TODAY)) == ["memory/big.md"] * 4


def test_the_language_of_the_notes_picks_the_stemmer(home: Home, ws: Path) -> None:
    assert guess_language(["Der Hund und die Katze sind nicht im Haus, das ist mit dem Auto."]) == "german"
    assert guess_language(["The dog and the cat are in the house."]) == "english"
    put(ws, "memory/reisen.md", "Die Zugfahrten nach Berlin sind gebucht und das Hotel ist bezahlt.\n")
    assert files(recall(home, BOT, "Wann ist die Zugfahrt?", TODAY)) == ["memory/reisen.md"]


# ----- Chinese and Japanese


def test_tokens_split_cjk_runs_into_bigrams() -> None:
    assert bigrams("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert tokens("新しいiPhone15を買った") == ["新し", "しい", "iphone15", "を買", "買っ", "った"]
    assert tokens("猫 and 犬") == ["猫", "and", "犬"]
    assert "削減" in content_words(GZIP_JA) and "ます" not in content_words(GZIP_JA)


def test_recall_finds_japanese_and_chinese_notes(home: Home, ws: Path) -> None:
    put(ws, "memory/gzip.md", GZIP_JA + "\n")
    put(ws, "memory/df.md", DF_JA + "\n")
    put(ws, "memory/ls.md", LS_ZH + "\n")
    put(ws, "memory/cp.md", CP_ZH + "\n")
    put(ws, "memory/mv.md", MV_ZH + "\n")
    assert files(recall(home, BOT, "ファイルのサイズを削減したい", TODAY))[0] == "memory/gzip.md"
    assert files(recall(home, BOT, "ディスク容量を確認するには？", TODAY))[0] == "memory/df.md"
    assert files(recall(home, BOT, "如何复制整个目录？", TODAY))[0] == "memory/cp.md"
    assert files(recall(home, BOT, "怎么给文件重命名呢", TODAY))[0] == "memory/mv.md"


def test_search_finds_cjk_words_as_written(home: Home, ws: Path) -> None:
    put(ws, "memory/gzip.md", GZIP_JA + "\n")
    put(ws, "memory/mv.md", MV_ZH + "\n")
    assert [h.file for h in search(home, BOT, ["拡張子"], None, None)] == ["memory/gzip.md"]
    assert [h.file for h in search(home, BOT, ["重命名"], None, None)] == ["memory/mv.md"]
    assert search(home, BOT, ["命名重"], None, None) == []      # its bigrams are there, the word is not


def test_whole_word_matches_cjk_without_spaces() -> None:
    assert whole_word("東京").search("明日は東京に行きます")
    assert whole_word("重命名").search(MV_ZH)
    assert whole_word("iPhone").search("新しいiPhoneを買った")
    assert not whole_word("phone").search("新しいiPhoneを買った")
    assert not whole_word("IST").search("dentist")


def test_forget_a_japanese_word(home: Home, ws: Path) -> None:
    from botmemory.core.notes import update

    store = Store(home, today=TODAY)
    put(ws, "memory/trip.md", entry("2026-09-10", "来週東京に出張します") + "\n" + entry("2026-09-11", "大阪は雨") + "\n")
    update.forget(store, BOT, ["東京"], Actor.person("cli"))
    text = (ws / "memory/trip.md").read_text(encoding="utf-8")
    assert "東京" not in text and "大阪は雨" in text


# ----- no secret in the index


def test_the_index_holds_no_secret(home: Home, ws: Path) -> None:
    key = "sk-ant-api03-" + "Zq8xT2vLmN4pR7sK9wYbC3dF6gH1jQ5uV0eA2iO8tX4zM7nB-" + "Q1w2E3r4T5y6U7iAA"
    password = "Tr0ub4dor&3-horse-staple"
    put(ws, "memory/keys.md", "---\ntitle: Keys\n---\n"
        + entry("2026-09-10", f"Anthropic key for the staging bot is {key}") + "\n\n"
        + f"Router login\npassword: {password}\n")
    assert recall(home, BOT, "Which key does the staging bot use?", TODAY).notes
    assert recall(home, BOT, "What is the router login?", TODAY).notes
    search(home, BOT, ["router"], None, None)
    leaked = []
    for dirpath, _dirs, names in os.walk(home.state_dir):
        for name in names:
            data = (Path(dirpath) / name).read_bytes()
            for secret in (key, password, "Zq8xT2vLmN4pR7sK9wYbC3dF6gH1jQ5uV0eA2iO8tX4zM7nB", "tr0ub4dor", "Tr0ub4dor"):
                if secret.encode() in data or secret.lower().encode() in data:
                    leaked.append((name, secret))
    assert leaked == []


# ----- the command line's quick path, processes, the background build


def _run(home: Home, *args: str, entry: str = "botmemory.core.faces.entry") -> tuple[int, str, str]:
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", entry, "--root", str(home.root), "--today", TODAY.isoformat(), *args],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("args", [
    ["recall", BOT, "When does the Lisbon flight leave?"],
    ["recall", BOT, "When does the Lisbon flight leave?", "--json"],
    ["--json", "recall", BOT, "Lisbon flight?"],
    ["search", BOT, "lisbon"],
    ["search", BOT, "--since", "3d", "--json"],
    ["search", BOT, "lisbon", "--since=2026-01-01", "--until", "yesterday"],
    ["search", BOT, "--since", "nonsense"],
    ["recall", "no such bot", "When does the Lisbon flight leave?"],
    ["recall", "nobot", "When does the Lisbon flight leave?"],
    ["recall", BOT],
    ["search", BOT, "-x"],
    ["recall", "--help"],
])
def test_the_quick_path_answers_as_the_full_command_line(home: Home, ws: Path, args: list[str]) -> None:
    put(ws, "memory/travel.md", entry("2026-10-14", "Flight to Lisbon leaves at 07:40") + "\n")
    assert _run(home, *args) == _run(home, *args, entry="botmemory.core.faces.cli")


def test_two_processes_recalling_during_a_build_both_answer_correctly(home: Home, ws: Path) -> None:
    import subprocess
    import sys

    for i in range(300):
        put(ws, f"memory/t{i:03d}.md", "\n".join(entry("2026-09-10", f"Note {i} line {j} about topic{i % 17}")
                                                for j in range(20)) + "\n")
    put(ws, "memory/zanzibar.md", entry("2026-09-12", "The Zanzibar ferry leaves at 07:40 from pier 3") + "\n")
    code = ("import sys; from datetime import date; from pathlib import Path;"
            "from botmemory.core.recall import query as R, index as I; from botmemory.core.disk.paths import Home;"
            "I.INLINE_BYTES = int(sys.argv[2]);"
            "r = R.recall(Home(Path(sys.argv[1])), 'scout', 'When does the Zanzibar ferry leave?',"
            " date(2026, 10, 15), background=sys.argv[3] == '1');"
            "print([n.file for n in r.notes])")
    # two processes build the same index at once: both wait for it and answer in full
    procs = [subprocess.Popen([sys.executable, "-c", code, str(home.root), "100000000", "0"],
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert outs == ["['memory/zanzibar.md']"] * 2
    # a build in the background: a recall meanwhile answers from what is indexed so far, never wrongly
    for suffix in ("", "-wal", "-shm"):
        Path(f"{R.index_path(home, BOT)}{suffix}").unlink(missing_ok=True)
    put(ws, "memory/zanzibar.md", entry("2026-09-13", "The Zanzibar ferry now leaves at 08:10") + "\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(home.root), "0", "1"],
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert outs == ["['memory/zanzibar.md']"] * 2             # what it does not cover yet is read directly
    R.refresh_index(home, BOT)           # what the tray app and watch call: waits for the builder
    r = recall(home, BOT, "When does the Zanzibar ferry leave?", TODAY, background=False)
    assert [n.text for n in r.notes] == ["The Zanzibar ferry now leaves at 08:10"]


def test_a_file_is_racy_for_one_timestamp_tick() -> None:
    now = 1_800_000_000_123_456_789
    fine = _Key(10, now - 10_000_000, now - 10_000_000, 1)          # changed 10 ms ago, nanosecond stamps
    assert B._is_racy(fine, now) and not B._is_racy(fine, now + B.TICK_NS)
    coarse = _Key(10, 1_800_000_000 * 10**9, 1_800_000_000 * 10**9, 1)    # whole-second stamps: 2 s
    assert B._is_racy(coarse, 1_800_000_001 * 10**9) and not B._is_racy(coarse, 1_800_000_002 * 10**9 + 1)


def test_while_the_index_is_built_a_changed_file_is_read_as_it_is_now(
        home: Home, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "TICK_NS", 0)
    put(ws, "memory/a.md", entry("2026-09-10", "Lisbon flight at 07:40") + "\n")
    put(ws, "memory/b.md", entry("2026-09-11", "Lisbon hotel is Casa Azul") + "\n")
    assert len(recall(home, BOT, "Lisbon plans?", TODAY).notes) == 2
    started: list[str] = []
    monkeypatch.setattr(I, "INLINE_BYTES", 0)                  # any change now waits for the builder
    monkeypatch.setattr(R, "_build_in_background", lambda h, b: started.append(b))
    put(ws, "memory/a.md", entry("2026-09-12", "Lisbon trip cancelled, no flight") + "\n")
    r = recall(home, BOT, "Lisbon plans?", TODAY)
    assert [n.text for n in r.notes] == ["Lisbon trip cancelled, no flight", "Lisbon hotel is Casa Azul"]
    assert started == [BOT] and r.why == ""


def _claude_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "claude" / "projects" / "-work-app" / "memory"
    put(folder, "MEMORY.md", "- [Billing](billing.md)\n")
    put(folder, "billing.md", "# Billing\n\nInvoices are reconciled by Milind every Monday.\n")
    return folder


def test_the_quick_path_recalls_a_tracked_agent_folder_by_its_id(home: Home, tmp_path: Path) -> None:
    import json

    folder = _claude_folder(tmp_path)
    code, out, err = _run(home, "track", "--path", str(folder), "--agent", "claude-code", "--json",
                          entry="botmemory.core.faces.cli")
    assert code == 0, err
    bot = json.loads(out)["id"]
    for args in (["recall", bot, "Who reconciles the invoices?"], ["recall", bot, "Who reconciles invoices?", "--json"],
                 ["search", bot, "invoices"]):
        got = _run(home, *args)
        assert got == _run(home, *args, entry="botmemory.core.faces.cli")
        assert got[0] == 0 and "billing.md" in got[1] and "Milind" in got[1]


def test_a_background_build_of_a_tracked_folder_indexes_that_folder(
        home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    from botmemory.core import kinds
    from botmemory.core.disk.paths import Folder

    folder = _claude_folder(tmp_path)
    bot = "claude-code-app"
    served = Home(home.root, I._OneFolder(Folder(bot, folder, str(folder), kinds.get("claude-code"))))
    started: list[list[str]] = []
    monkeypatch.setattr(I, "INLINE_BYTES", 0)                  # the index is built in the background
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **kw: started.append(list(argv)))
    r = recall(served, bot, "Who reconciles the invoices?", TODAY)
    assert len(started) == 1                                   # nothing indexed yet: the builder was started,
    assert [n.file for n in r.notes] == ["billing.md"]         # and the folder was read directly meanwhile
    argv = started[0]
    assert argv[argv.index("--build") + 1:] == [str(home.root), bot, str(folder), "claude-code"]
    assert I._build_main(*argv[argv.index("--build") + 1:]) == 0      # what the builder process runs
    r = recall(served, bot, "Who reconciles the invoices?", TODAY)
    assert [(n.file, n.text) for n in r.notes] == [("billing.md", "Invoices are reconciled by Milind every Monday.")]


def test_the_quick_path_reads_the_tracked_registry_only_for_an_id_that_is_not_a_workspace(
        home: Home, ws: Path) -> None:
    import subprocess
    import sys

    put(ws, "memory/travel.md", entry("2026-10-14", "Flight to Lisbon leaves at 07:40") + "\n")
    code = ("import sys; from botmemory.core.faces import entry as quick;"
            "rc = quick.main(['--root', sys.argv[1], 'recall', sys.argv[2], 'When does the Lisbon flight leave?']);"
            "print(rc, 'botmemory.core.kinds.tracked' in sys.modules)")
    for bot, want in ((BOT, "0 False"), ("nobot", "2 True")):
        p = subprocess.run([sys.executable, "-c", code, str(home.root), bot], capture_output=True, text=True)
        assert p.stdout.strip().splitlines()[-1] == want, p.stderr


HEAVY = ("logging", "dataclasses", "inspect", "filelock", "argparse", "hashlib", "json", "typing",
         "botmemory.core.kinds")


@pytest.mark.parametrize("args, allowed", [
    (["recall", BOT, "When does the Lisbon flight leave?"], ("hashlib",)),   # a note recalled: its file's SHA-256 checked
    (["recall", BOT, "Anything about the Zanzibar ferry?"], ()),             # nothing recalled
    (["search", BOT, "lisbon"], ()),
    (["search", BOT, "lisbon", "--since", "3d"], ()),
])
def test_a_plain_recall_or_search_process_imports_nothing_heavy(
        home: Home, ws: Path, args: list[str], allowed: tuple[str, ...]) -> None:
    import subprocess
    import sys

    put(ws, "memory/travel.md", entry("2026-10-14", "Flight to Lisbon leaves at 07:40") + "\n")
    put(ws, "MEMORY.md", entry("2026-10-13", "Lisbon trip booked") + "\n")
    code = ("import sys; from botmemory.core.faces import entry as quick;"
            "rc = quick.main(sys.argv[1:]);"
            f"print(rc, [m for m in {tuple(m for m in HEAVY if m not in allowed)!r} if m in sys.modules])")
    runs = [subprocess.run([sys.executable, "-c", code, "--root", str(home.root), "--today", TODAY.isoformat(), *args],
                           capture_output=True, text=True) for _ in range(3)]
    # the first recall built the index (reading, hashing and redacting the files), the second hashed again a
    # file indexed within a timestamp tick of its change ("racy"); the third reads the index as a turn's does
    p = runs[-1]
    assert p.stdout.strip().splitlines()[-1] == "0 []", p.stderr
