"""`bench/run.py --only` (bench/scenarios.py `scenarios_select`)."""

from __future__ import annotations

from bench.scenarios import Scenario, scenarios_select


def _named(*names: str) -> list[Scenario]:
    return [Scenario(name, name, target="menu_counts", path="/") for name in names]


def test_a_word_keeps_the_scenarios_it_names_or_that_continue_it_after_a_dot_or_an_underscore() -> None:
    every = _named(
        "explorer.page",
        "explorer.menu_histogram_created",
        "explorer.menu_histogram_created_filtered",
        "explorer.menu_histograms",
        "admin.page",
    )
    kept = [s.name for s in scenarios_select(every, ["explorer.menu_histogram"])]
    assert kept == ["explorer.menu_histogram_created", "explorer.menu_histogram_created_filtered"]
    assert [s.name for s in scenarios_select(every, ["explorer"])] == [s.name for s in every[:4]]
    assert [s.name for s in scenarios_select(every, ["admin.page"])] == ["admin.page"]
    assert scenarios_select(every, []) == every
