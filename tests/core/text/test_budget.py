from __future__ import annotations

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from botmemory.core.text import budget
from botmemory.core.text.budget import MEMORY_MAX_BYTES, MEMORY_MAX_LINES, Level, Topic
from botmemory.core.text.frontmatter import Frontmatter
from tests.conftest import examples

TODAY = date(2026, 10, 15)


def test_the_two_constants():
    assert (MEMORY_MAX_LINES, MEMORY_MAX_BYTES) == (200, 24576)


def test_levels():
    assert budget.gauge("x\n" * 100).level is Level.OK
    assert budget.gauge("x\n" * 160).level is Level.AMBER
    g = budget.gauge("x\n" * 201)
    assert g.level is Level.RED and g.unloaded_lines == 1


def test_bytes_amber_and_whole_line_cut():
    line = "y" * 99 + "\n"
    assert budget.gauge(line * 197).level is Level.AMBER  # 19,700 bytes ≥ 80 %
    g = budget.gauge(line * 250)
    assert g.loaded_lines == 200 and g.unloaded_lines == 50
    big = "z" * 199 + "\n"
    g = budget.gauge(big * 150)
    assert g.loaded_lines == 122 and g.loaded_bytes == 24400


def test_last_line_without_newline_counts():
    g = budget.gauge("a\nb")
    assert g.lines == 2 and g.bytes == 3 and g.unloaded_lines == 0


def test_multibyte_counts_bytes():
    g = budget.gauge("é" * 10 + "\n")
    assert g.bytes == 21


def test_empty_file():
    g = budget.gauge("")
    assert (g.lines, g.bytes, g.level) == (0, 0, Level.OK)
    assert budget.compose_block("", [], TODAY) == ""


def test_load_block_drops_expired_and_adds_notice_and_index():
    text = ("- 2026-10-01 · from cli · gone · until 2026-10-14\n"
            "  with its own line\n"
            "- 2026-10-01 · from cli · today still · until 2026-10-15\n") + "h\n" * 250
    topics = [Topic("memory/zeta.md", None),
              Topic("memory/clients.md", Frontmatter("Clients", "Who we pay", ("customers", "accounts")))]
    out = budget.compose_block(text, topics, TODAY)
    assert "gone" not in out and "with its own line" not in out and "today still" in out
    assert "[MEMORY.md was cut off here: 53 more lines did not load]" in out
    tail = out.splitlines()[-3:]
    assert tail == ["## Topics", "- memory/clients.md — Clients: Who we pay (aliases: customers, accounts)", "- memory/zeta.md"]


def test_topic_index_limits():
    many = [Topic(f"memory/t{i:03d}.md", None) for i in range(60)]
    assert len(budget.topic_index(many)) == 40
    wide = [Topic(f"memory/t{i:03d}.md", Frontmatter("T" * 200, None, ())) for i in range(30)]
    lines = budget.topic_index(wide)
    assert sum(len(l) + 1 for l in lines) <= 2000 and len(lines) < 30


line_st = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=300)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(line_st, max_size=260), st.booleans())
def test_loader_and_gauge_agree(lines, trailing):
    text = "\n".join(lines) + ("\n" if trailing and lines else "")
    g = budget.gauge(text)
    loaded, unloaded = budget.loaded_text(text)
    assert unloaded == g.unloaded_lines
    assert (g.level is Level.RED) == (unloaded > 0)
    assert len(loaded.encode("utf-8")) <= MEMORY_MAX_BYTES
    assert loaded.count("\n") + (0 if loaded.endswith("\n") or not loaded else 1) <= MEMORY_MAX_LINES
    assert text.startswith(loaded)
    block = budget.compose_block(text, [], TODAY)
    notices = [l for l in block.splitlines() if l.startswith("[MEMORY.md was cut off here")]
    assert len(notices) == (1 if unloaded else 0)


def test_topic_index_is_in_byte_order_of_the_file_name():
    names = ["b.md", "alpha.md", "Zeta.md", "a.md", "a-b.md", "Ärzte.md", "Alpha.md"]
    lines = budget.topic_index([Topic(f"memory/{n}", None) for n in names])
    assert lines == [f"- memory/{n}" for n in ["Alpha.md", "Zeta.md", "a-b.md", "a.md", "alpha.md", "b.md", "Ärzte.md"]]
    many = [Topic(f"memory/{c}{i:02d}.md", None) for c in "aB" for i in range(30)]
    assert budget.topic_index(many)[0] == "- memory/B00.md" and budget.topic_index(many)[-1] == "- memory/a09.md"
