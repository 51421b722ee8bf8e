"""The budget timeline against weeks computed by hand (karplint.disruption)."""

from __future__ import annotations

from datetime import datetime

import pytest

from karplint.disruption.budgets import (
    REFERENCE_WEEK, WEEK, allowed_nodes, clock, nodepool_timelines, read_budgets, timelines,
)
from karplint.disruption.schedule import parse

H = 60
DAY = 24 * H


def pool(budgets=None, api="karpenter.sh/v1"):
    disruption = {"consolidateAfter": "0s"}
    if budgets is not None:
        disruption["budgets"] = budgets
    return {"apiVersion": api, "kind": "NodePool", "spec": {"disruption": disruption}}


def shape(tl):
    return [(s.start, s.end, s.limit()) for s in tl.segments]


@pytest.mark.parametrize("nodes,total,expected", [
    ("10%", 5, 1),  # ceil(0.5): intstr.GetScaledValueFromIntOrPercent rounds up
    ("10%", 10, 1),
    ("10%", 11, 2),  # ceil(1.1)
    ("25%", 10, 3),  # ceil(2.5)
    ("33%", 3, 1),  # ceil(0.99)
    ("0%", 50, 0),
    ("100%", 7, 7),
    ("1%", 1, 1),
    ("5%", 0, 0),
    ("3", 2, 3),  # counts are not capped by the pool size
    ("0", 9, 0),
    ("abc", 9, None),
    ("101%", 9, None),
])
def test_percentages_round_up(nodes, total, expected):
    assert allowed_nodes(nodes, total) == expected


def test_default_budget_is_ten_percent_always():
    tl = nodepool_timelines(pool())
    assert set(tl) == {"Drifted", "Empty", "Underutilized"}
    for t in tl.values():
        assert shape(t) == [(0, WEEK, "10%")]
        assert t.allowed_at(3 * DAY, 5) == 1


def test_empty_budget_list_is_unlimited():
    # an explicit list replaces the default: no budget at all is no restriction
    for t in nodepool_timelines(pool([])).values():
        assert shape(t) == [(0, WEEK, "unlimited")]
        assert t.allowed_at(0, 100) is None


def test_daily_window_in_utc():
    # 02:00-06:00 UTC every day, 20%; nothing else: unlimited 20h a day
    tl = nodepool_timelines(pool([{"nodes": "20%", "schedule": "0 2 * * *", "duration": "4h"}]))["Drifted"]
    segs = shape(tl)
    assert segs[0] == (0, 2 * H, "unlimited")
    assert segs[1] == (2 * H, 6 * H, "20%")
    assert segs[2] == (6 * H, DAY + 2 * H, "unlimited")
    assert segs[-1] == (6 * DAY + 6 * H, WEEK, "unlimited")
    assert len(segs) == 15
    assert tl.unlimited_minutes() == WEEK - 7 * 4 * H == 8400
    assert tl.allowed_at(2 * H, 7) == 2  # ceil(1.4)
    assert tl.allowed_at(6 * H, 7) is None  # the end is exclusive: [hit, hit + duration)
    assert tl.allowed_at(6 * H - 1, 7) == 2


def test_window_across_the_week_boundary():
    # Sunday 22:00 + 4h: the hit of the previous Sunday still holds Monday 00:00-02:00
    tl = nodepool_timelines(pool([{"nodes": "0", "schedule": "0 22 * * sun", "duration": "4h"}]))["Empty"]
    assert shape(tl) == [(0, 2 * H, "0 (blocked)"), (2 * H, 6 * DAY + 22 * H, "unlimited"),
                         (6 * DAY + 22 * H, WEEK, "0 (blocked)")]


def test_overlapping_budgets_most_restrictive_wins():
    budgets = [
        {"nodes": "10%"},  # always
        {"nodes": "3", "schedule": "0 0 * * mon-fri", "duration": "12h"},
        {"nodes": "0", "schedule": "0 9 * * 1-5", "duration": "8h", "reasons": ["Underutilized"]},
    ]
    tl = nodepool_timelines(pool(budgets))
    under, drift = tl["Underutilized"], tl["Drifted"]
    assert shape(under)[:5] == [(0, 9 * H, "min(10%, 3)"), (9 * H, 12 * H, "0 (blocked)"), (12 * H, 17 * H, "0 (blocked)"),
                                (17 * H, DAY, "10%"), (DAY, DAY + 9 * H, "min(10%, 3)")]
    # for display, equal limits merge
    assert [(a, b, lim) for a, b, lim in under.merged()][:3] == [(0, 9 * H, "min(10%, 3)"), (9 * H, 17 * H, "0 (blocked)"),
                                                               (17 * H, DAY, "10%")]
    assert shape(drift)[:2] == [(0, 12 * H, "min(10%, 3)"), (12 * H, DAY, "10%")]
    # 50 nodes: 10% = 5, so the scheduled 3 wins; 20 nodes: 10% = 2 wins over 3
    assert drift.allowed_at(H, 50) == 3 and drift.allowed_at(H, 20) == 2
    assert drift.allowed_at(13 * H, 50) == 5
    assert under.allowed_at(10 * H, 50) == 0
    # Saturday and Sunday: only the always-on budget
    assert under.allowed_at(5 * DAY + 10 * H, 50) == 5
    assert under.unlimited_minutes() == 0


def test_hourly_and_minutes_durations():
    tl = nodepool_timelines(pool([{"nodes": "1", "schedule": "@hourly", "duration": "15m"}]))["Empty"]
    assert tl.unlimited_minutes() == WEEK - 7 * 24 * 15
    assert shape(tl)[:3] == [(0, 15, "1"), (15, H, "unlimited"), (H, H + 15, "1")]
    tl = nodepool_timelines(pool([{"nodes": "1", "schedule": "30 23 * * SAT", "duration": "1h30m"}]))["Empty"]
    assert shape(tl) == [(0, 5 * DAY + 23 * H + 30, "unlimited"), (5 * DAY + 23 * H + 30, 6 * DAY + H, "1"),
                         (6 * DAY + H, WEEK, "unlimited")]
    tl = nodepool_timelines(pool([{"nodes": "1", "schedule": "30 23 * * SUN", "duration": "1h30m"}]))["Empty"]
    assert shape(tl) == [(0, 60, "1"), (60, 6 * DAY + 23 * H + 30, "unlimited"), (6 * DAY + 23 * H + 30, WEEK, "1")]


def test_duration_longer_than_the_gap_merges_windows():
    tl = nodepool_timelines(pool([{"nodes": "0", "schedule": "0 */6 * * *", "duration": "7h"}]))["Drifted"]
    assert shape(tl) == [(0, WEEK, "0 (blocked)")]


def test_invalid_schedule_fails_closed_for_every_reason():
    budgets = [{"nodes": "10%"}, {"nodes": "5", "schedule": "0 25 * * *", "duration": "1h", "reasons": ["Empty"]}]
    for t in nodepool_timelines(pool(budgets)).values():
        assert len(t.segments) == 1 and t.allowed_at(0, 100) == 0
        assert "fails closed" in t.segments[0].limit()


def test_reasons_empty_list_applies_to_none():
    tl = nodepool_timelines(pool([{"nodes": "0", "reasons": []}]))
    assert all(shape(t) == [(0, WEEK, "unlimited")] for t in tl.values())


def test_v1beta1_budgets_apply_to_all_methods():
    tl = nodepool_timelines(pool([{"nodes": "0", "schedule": "@daily", "duration": "10m", "reasons": ["Empty"]}],
                                 api="karpenter.sh/v1beta1"))
    assert list(tl) == ["all"]
    assert tl["all"].unlimited_minutes() == WEEK - 70


def test_day_of_month_or_weekday():
    # robfig/cron: both day fields restricted -> a day matches either (13th or Friday)
    s = parse("0 0 13 * 5")
    hits = s.hits(datetime(2024, 2, 1), datetime(2024, 3, 1))
    assert [h.day for h in hits] == [2, 9, 13, 16, 23]
    assert not s.weekly
    # day of week a star -> AND: only the 1st
    assert [h.day for h in parse("0 0 1 * *").hits(datetime(2024, 2, 1), datetime(2024, 3, 1))] == [1]
    # `*/2` is not a star: OR with Monday
    days = [h.day for h in parse("0 0 */2 * mon").hits(datetime(2024, 2, 1), datetime(2024, 2, 10))]
    assert days == [1, 3, 5, 7, 9]  # Feb 5 is a Monday and odd anyway
    days = [h.day for h in parse("0 0 */2 * tue").hits(datetime(2024, 2, 1), datetime(2024, 2, 10))]
    assert days == [1, 3, 5, 6, 7, 9]
    # `5/20` means 5-59/20
    assert sorted(parse("5/20 * * * *").minutes) == [5, 25, 45]


def test_descriptors():
    assert parse("@weekly").weekdays == frozenset({0}) and parse("@weekly").weekly
    assert not parse("@monthly").weekly
    assert parse("@every 1h") is None and parse("0 0 * *") is None


def test_monthly_schedule_is_marked_as_one_example_week():
    tl = nodepool_timelines(pool([{"nodes": "0", "schedule": "@monthly", "duration": "24h"}]))["Drifted"]
    assert tl.weekly is False
    assert shape(tl) == [(0, DAY, "0 (blocked)"), (DAY, WEEK, "unlimited")]  # 2024-01-01 is the 1st


def test_other_week_start():
    start = datetime(2024, 2, 12)  # Monday
    tl = timelines(read_budgets({"budgets": [{"nodes": "0", "schedule": "0 0 13 * *", "duration": "2h"}]}),
                   start=start)["Empty"]
    assert shape(tl) == [(0, DAY, "unlimited"), (DAY, DAY + 2 * H, "0 (blocked)"), (DAY + 2 * H, WEEK, "unlimited")]
    assert clock(DAY, start) == "Tue 00:00" and clock(0) == "Mon 00:00" and REFERENCE_WEEK.weekday() == 0
