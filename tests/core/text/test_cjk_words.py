"""One-character CJK words: CJK text has no spaces, so a word is matched inside a run of CJK characters."""
from __future__ import annotations

import json

from botmemory.core.faces.cli import main
from botmemory.core.text.entries import whole_word


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_whole_word_finds_a_cjk_word_inside_a_cjk_run_and_keeps_latin_words_whole():
    assert whole_word("猫").search("我的猫很可爱")
    assert whole_word("东京").search("我住在东京市")
    assert whole_word("猫").search("猫")
    assert not whole_word("ist").search("dentist")
    assert not whole_word("猫x").search("猫xy")                     # the Latin end stays whole


def test_forget_and_journal_grep_a_one_character_cjk_word(capsys, tmp_path):
    root = str(tmp_path / "home")
    assert run(capsys, "--root", root, "init", "scout")[0] == 0
    assert run(capsys, "--root", root, "remember", "scout", "我的猫很可爱")[0] == 0
    assert run(capsys, "--root", root, "remember", "scout", "我住在东京")[0] == 0
    code, out, _ = run(capsys, "--root", root, "journal", "scout", "--grep", "猫", "--json")
    assert code == 0 and len(json.loads(out)) == 1
    code, out, err = run(capsys, "--root", root, "forget", "scout", "猫", "--json")
    assert code == 0 and json.loads(out)["removed"] and "我的猫很可爱" in json.loads(out)["removed"][0]
    text = (tmp_path / "home" / "workspaces" / "scout" / "MEMORY.md").read_text()
    assert "猫" not in text and "东京" in text


def test_search_finds_a_one_character_cjk_word_as_forget_does(capsys, tmp_path):
    root = str(tmp_path / "home")
    assert run(capsys, "--root", root, "init", "scout")[0] == 0
    for text in ("我的猫很可爱", "東京に行く", "Buy milk"):
        assert run(capsys, "--root", root, "remember", "scout", text)[0] == 0
    for word, found in (("猫", "我的猫很可爱"), ("京", "東京に行く"), ("猫 可爱", "我的猫很可爱")):
        code, out, _ = run(capsys, "--root", root, "search", "scout", *word.split(), "--json")
        assert code == 0 and [found in h["text"] for h in json.loads(out)] == [True], word
    code, out, _ = run(capsys, "--root", root, "search", "scout", "狗", "--json")
    assert (code, json.loads(out)) == (0, [])
