"""The gauge: lines and size against the budget, amber from 80 %, red with the unloaded count."""
from __future__ import annotations

import pytest

from botmemory.core.ops import text_gauge
from botmemory.core.text.budget import Level
from botmemory.desktop.gauge import COLOURS, GaugeWidget, summary, unloaded_text

from .conftest import memory_text


@pytest.fixture
def widget(qtbot):
    w = GaugeWidget()
    qtbot.addWidget(w)
    w.show()
    return w


def test_the_rule_is_always_said(widget):
    assert widget.rule_label.text() == "Only the first 200 lines load each turn."
    widget.set_gauge(text_gauge(memory_text(3)))
    assert widget.rule_label.isVisible()
    widget.set_gauge(text_gauge(memory_text(250)))
    assert "only the first 200 lines load each turn" in widget.rule_label.text().lower()


def test_ok(widget):
    g = text_gauge(memory_text(40))
    widget.set_gauge(g)
    assert g.level is Level.OK
    assert widget.lines_label.text() == "40 of 200 lines"
    assert widget.size_label.text().endswith("of 24 KB")
    assert widget.lines_bar.colour == COLOURS[Level.OK]
    assert widget.lines_bar.fraction == pytest.approx(0.2)
    assert not widget.unloaded_label.isVisible()
    assert "within the budget" in widget.state_label.text()


def test_amber_from_80_percent(widget):
    g = text_gauge(memory_text(160))
    assert g.level is Level.AMBER
    widget.set_gauge(g)
    assert widget.lines_label.text() == "160 of 200 lines"
    assert widget.lines_bar.colour == COLOURS[Level.AMBER]
    assert "nearly full" in widget.state_label.text()
    assert not widget.unloaded_label.isVisible()


def test_red_once_anything_stops_loading(widget):
    g = text_gauge(memory_text(214))
    assert g.level is Level.RED
    widget.set_gauge(g)
    assert widget.unloaded_label.isVisible()
    assert widget.unloaded_label.text() == "14 lines are not being loaded"
    assert widget.lines_bar.colour == COLOURS[Level.RED]
    assert "over the budget" in widget.state_label.text()


def test_red_by_size(widget):
    long_line = "- 2026-10-01 · from cli · " + "x" * 400 + "\n"
    g = text_gauge(long_line * 70)
    assert g.level is Level.RED and g.lines < 200
    widget.set_gauge(g)
    assert widget.size_bar.fraction > 1
    assert "not being loaded" in widget.unloaded_label.text()


def test_unknown_then_known(widget):
    widget.set_gauge(None)
    assert widget.lines_label.text() == "…"
    widget.set_gauge(text_gauge(""))
    assert widget.lines_label.text() == "0 of 200 lines"


def test_texts():
    g = text_gauge(memory_text(201))
    assert unloaded_text(g) == "1 line is not being loaded"
    assert summary("scout", g).startswith("scout: 201 of 200 lines")


def test_the_red_notice_says_one_line_in_the_singular(session):
    from .conftest import BOT

    shown = []
    session.notice.connect(shown.append)
    session._red_notices({BOT: text_gauge("".join(f"line {i}\n" for i in range(201)))}, {})
    (n,) = shown
    assert n.kind == "red" and n.text.startswith("1 line is not being loaded; ")


def test_each_bar_has_its_own_colour(widget):
    long_line = "- 2026-10-01 · from cli · " + "x" * 400 + "\n"
    widget.set_gauge(text_gauge(long_line * 70))           # 70 lines, ~30 KB: over by size only
    assert widget.size_bar.colour == COLOURS[Level.RED]
    assert widget.lines_bar.colour == COLOURS[Level.OK]
    widget.set_gauge(text_gauge(memory_text(170)))         # amber by lines, small in bytes
    assert widget.lines_bar.colour == COLOURS[Level.AMBER]
    assert widget.size_bar.colour == COLOURS[Level.OK]


def test_a_small_file_says_bytes():
    from botmemory.desktop.gauge import size_text

    assert size_text(text_gauge("x" * 47 + "\n")) == "48 bytes of 24 KB"
    assert size_text(text_gauge("x" * 2047 + "\n")) == "2 of 24 KB"
