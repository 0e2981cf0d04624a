"""lore.charts.series: the geometry of the charts over time (issue 28, part 2)."""

from __future__ import annotations

from lore.charts.series import BOTTOM, HEIGHT, TOP, Series, bar_chart, line_chart, short_number, y_scale


def test_the_y_axis_ends_on_a_round_step_above_the_highest_value() -> None:
    assert y_scale(0) == (1, 1)
    assert y_scale(5) == (6, 2)
    assert y_scale(48) == (60, 20)
    assert y_scale(4_630) == (6_000, 2_000)
    top, step = y_scale(1_234_567)
    assert top >= 1_234_567 and top // step <= 4 and top % step == 0


def test_numbers_left_of_the_plot_are_short() -> None:
    assert [short_number(n) for n in (0, 12, 1_200, 2_000_000)] == ["0", "12", "1.2k", "2M"]


def test_a_line_breaks_where_a_value_is_unknown_and_a_lone_point_is_a_dot() -> None:
    chart = line_chart(
        dom_id="c", title="t", caption="c", labels=list("abcdef"),
        series=[Series("active", "Active", (1, 2, None, 4, None, 6))],
    )  # fmt: skip
    (line,) = chart.lines
    assert len(line.segments) == 1 and line.segments[0].count(",") == 2
    assert len(line.dots) == 2


def test_bars_stand_on_the_baseline_and_the_highest_reaches_the_top_of_its_axis() -> None:
    chart = bar_chart(
        dom_id="c", title="Runs", caption="c", labels=["#1", "#2", "#3"],
        series=[Series("archived", "Archived", (0, 10, 20))], flags=[False, True, False], mark_label="Interrupted",
    )  # fmt: skip
    assert len(chart.bars) == 2  # a zero draws nothing
    for bar in chart.bars:
        assert round(bar.y + bar.height, 2) == HEIGHT - BOTTOM
    assert chart.title == "Runs" and chart.bars[-1].title == "#3 · Archived: 20"
    top, _ = y_scale(20)
    assert round(chart.bars[-1].height, 1) == round((HEIGHT - TOP - BOTTOM) * 20 / top, 1)
    assert [m.title for m in chart.marks] == ["#2 · Interrupted"]
    assert chart.rows == [("#1", ["0", ""]), ("#2", ["10", "yes"]), ("#3", ["20", ""])]


def test_x_labels_are_few_and_the_first_and_last_stay_inside_the_picture() -> None:
    labels = [f"d{i}" for i in range(90)]
    chart = line_chart(
        dom_id="c", title="t", caption="c", labels=labels, series=[Series("reads", "R", (1,) * 90)]
    )
    assert len(chart.x_ticks) <= 6
    assert (chart.x_ticks[0].label, chart.x_ticks[0].anchor) == ("d0", "start")
    assert (chart.x_ticks[-1].label, chart.x_ticks[-1].anchor) == ("d89", "end")
