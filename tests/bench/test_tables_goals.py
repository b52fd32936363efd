"""The capacity goals read off a run's steps (bench/tables_goals.py)."""

from __future__ import annotations

from typing import Any

from bench.tables_goals import holds, verdict, verdicts


def step(
    tables: int, done: float, play_p99: float, push_p99: float | None = None
) -> dict[str, Any]:
    """A step's row as ``bench tables`` makes it (2 seats, think 1-3 s: tables / 2 plays/s)."""
    return {
        "side": "after",
        "tables": tables,
        "planned_s": tables / 2,
        "done_s": done,
        "play_p99": play_p99,
        "push_p99": play_p99 if push_p99 is None else push_p99,
    }


# A run of the evening of 2026-12-05: capacity 1,000, both parts met at 2,000.
MET = [
    step(1000, 478.4, 34.5),
    step(1250, 593.0, 282.5),
    step(1500, 602.5, 378.5),
    step(2000, 575.6, 59.9),
    step(2500, 590.5, 165.6),
    step(3000, 627.6, 172.5),
]


def test_a_step_holds_its_tables_at_95_percent_of_planned_within_both_p99s() -> None:
    # given steps on either side of each bound
    # then only those within all three hold
    assert holds(step(1000, 475.0, 100.0, 150.0))
    assert not holds(step(1000, 474.9, 10.0))
    assert not holds(step(1000, 500.0, 100.1))
    assert not holds(step(1000, 500.0, 10.0, 150.1))


def test_twice_the_capacity_is_read_against_the_best_step_and_the_capacity_steps_p99() -> None:
    # given a run whose largest step holding its tables is 1,000 (1,250 missed the p99)
    # when it is read against the goals
    said = verdict(MET)
    # then the capacity is 1,000 and at 2,000 both parts are met against the best step (3,000)
    assert said.startswith("capacity 1,000 tables (478.4 of 500.0 plays/s, play p99 34.5 ms)")
    assert (
        "plays done 575.6/s = 91.7% of the best step's 627.6 (3,000 tables; goal 90%: met)" in said
    )
    assert "play p99 59.9 ms = 1.74x the capacity step's (goal 2x: met)" in said


def test_each_part_is_missed_on_its_own() -> None:
    # given a run with capacity 1,250 whose 2,500 step did 77% of the best rate at 1.76x the p99
    rows = [
        step(1250, 615.1, 34.9),
        step(1500, 650.1, 111.2),
        step(2500, 500.2, 61.3),
    ]
    # then the plays done are missed and the p99 met
    said = verdict(rows)
    assert "76.9% of the best step's 650.1 (1,500 tables; goal 90%: missed)" in said
    assert "1.76x the capacity step's (goal 2x: met)" in said
    # and a p99 past twice the capacity step's is missed
    rows[2] = step(2500, 640.0, 69.9)
    assert "2.00x the capacity step's (goal 2x: met)" not in verdict(rows)
    assert "(goal 2x: missed)" in verdict(rows)


def test_without_a_capacity_or_its_double_the_run_says_so() -> None:
    # given a run no step of which held its tables, and one without twice its capacity
    # then each says what it lacks
    assert "no capacity" in verdict([step(1250, 556.6, 103.7), step(2500, 518.5, 71.7)])
    assert verdict(MET[:3]).endswith("no step at 2,000 tables measured")


def test_each_side_and_run_is_read_on_its_own_steps() -> None:
    # given two sides in two runs
    before = [dict(row, side="before") for row in MET]
    second = [dict(row, run=2) for row in MET[:3]]
    # when read
    lines = verdicts([*MET, *before, *second])
    # then there is a line for each, in the order first met
    assert [line.split(":")[0] for line in lines] == [
        "after (run 1)",
        "before (run 1)",
        "after (run 2)",
    ]
    assert lines[2].endswith("no step at 2,000 tables measured")
