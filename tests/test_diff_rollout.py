"""`karplint diff`'s rollout: which budgets govern the replacement of drifted nodes, at what pace, when; and the
node count it is worked out for (`--nodes`, the `diff-nodes` setting, a static pool's `spec.replicas`)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from karplint.config import ConfigError, load_config
from karplint.diff.rollout import nodes_for, rollout
from karplint.model import as_resource
from karplint.model.versions import V
from karplint.readers.loader import decode, load


def pool(disruption=None, api="karpenter.sh/v1", name="general", extra=None):
    """A NodePool read from YAML text as `check` reads it (JSON is YAML)."""
    spec = {"disruption": disruption} if disruption is not None else {}
    spec.update(extra or {})
    text = json.dumps({"apiVersion": api, "kind": "NodePool", "metadata": {"name": name}, "spec": spec})
    docs, problems = load(decode("nodepool.yaml", text.encode()))
    assert not problems
    return as_resource(docs[0])


def brief(doc):
    return None if doc is None else (doc["budgets"], doc["never"], doc["pace"], doc["windows"], doc["summary"])


@pytest.mark.parametrize("verdict", ["none", "new", "removed"])
def test_nothing_rolls_out_without_drift(verdict):
    assert rollout(pool(), drift_verdict=verdict, nodes=10) is None


def test_default_budget_is_ten_percent_from_the_crd():
    doc = rollout(pool(), drift_verdict="all", nodes=10)
    assert brief(doc) == ([], False, "10% of nodes at a time (1 of 10)", "always", "10% at a time")
    assert doc["default_budget"] is True and doc["source"].startswith("karpenter.sh_nodepools.yaml CRD default")
    assert doc["notes"][0] == "no budgets are written: the CRD default, 10% of the pool's nodes at a time, applies"
    assert (doc["unlimited_minutes"], doc["blocked_minutes"]) == (0, 0)
    # without a node count the percentage is said as written
    assert rollout(pool(), drift_verdict="all", nodes=None)["pace"] == "10% of nodes at a time"


@pytest.mark.parametrize("nodes, total, expected", [
    ("10%", 5, "10% of nodes at a time (1 of 5)"),  # ceil(0.5): Karpenter rounds up
    ("25%", 10, "25% of nodes at a time (3 of 10)"),
    ("3", 10, "3 of 10 nodes at a time"),
    ("5", 3, "3 of 3 nodes at a time"),  # an allowance above the pool's size replaces them all
    ("1", 1, "1 of 1 node at a time"),
])
def test_pace_for_a_node_count(nodes, total, expected):
    assert rollout(pool({"budgets": [{"nodes": nodes}]}), drift_verdict="all", nodes=total)["pace"] == expected


def test_zero_budget_for_drifted_never_rolls_out():
    doc = rollout(pool({"budgets": [{"nodes": "0", "reasons": ["Drifted"]}, {"nodes": "10%"}]}),
                  drift_verdict="all", nodes=10)
    assert brief(doc) == ([0, 1], True, "none", "never",
                          "never rolls out: a budget of 0 nodes covers Drifted at every moment")
    assert doc["blocked_minutes"] == 7 * 24 * 60


def test_zero_budget_for_other_reasons_does_not_govern_drift():
    doc = rollout(pool({"budgets": [{"nodes": "0", "reasons": ["Underutilized", "Empty"]}]}),
                  drift_verdict="all", nodes=10)
    assert brief(doc) == ([], False, "all at once", "always", "all at once")
    assert doc["unlimited_minutes"] == 7 * 24 * 60


def test_weekday_window_blocked_at_night_and_on_weekends():
    budgets = [{"nodes": "0", "schedule": "0 17 * * 1-4", "duration": "16h"},  # Mon-Thu 17:00 to 09:00
               {"nodes": "0", "schedule": "0 17 * * 5", "duration": "64h"},  # Fri 17:00 to Mon 09:00
               {"nodes": "10%"}]
    doc = rollout(pool({"budgets": budgets}), drift_verdict="all", nodes=20)
    assert brief(doc) == ([0, 1, 2], False, "10% of nodes at a time (2 of 20)", "Mon-Fri 09:00-17:00 UTC",
                          "10% at a time, only Mon-Fri 09:00-17:00 UTC")
    assert doc["blocked_minutes"] == 7 * 24 * 60 - 5 * 8 * 60


def test_weekends_only_and_weekdays_only():
    weekend = rollout(pool({"budgets": [{"nodes": "0", "schedule": "0 0 * * mon-fri", "duration": "24h"}]}),
                      drift_verdict="all", nodes=None)
    assert brief(weekend)[2:] == ("all at once", "weekends only", "all at once, weekends only")
    weekdays = rollout(pool({"budgets": [{"nodes": "0", "schedule": "0 0 * * sat", "duration": "48h"},
                                         {"nodes": "20%"}]}), drift_verdict="all", nodes=10)
    assert brief(weekdays)[2:] == ("20% of nodes at a time (2 of 10)", "weekdays only",
                                   "20% at a time, weekdays only")


def test_pace_that_changes_over_the_day():
    doc = rollout(pool({"budgets": [{"nodes": "2", "schedule": "0 9 * * *", "duration": "8h"}]}),
                  drift_verdict="all", nodes=10)
    assert doc["pace"] == ("all at once (every day 00:00-09:00, 17:00-24:00 UTC); "
                           "2 of 10 nodes at a time (every day 09:00-17:00 UTC)")
    assert doc["windows"] == "always"
    assert doc["summary"] == "all at once or 2 of 10 nodes at a time depending on the time"


def test_pace_with_blocked_hours_and_unbudgeted_weekends_reads_as_one_phrase():
    """Work hours at 10%, nights blocked, weekends under no budget (unlimited: upstream "should return MaxInt32
    for all reasons when there are no active budgets"): each allowance once, no window text cut in half."""
    doc = rollout(pool({"budgets": [{"nodes": "10%", "schedule": "0 9 * * mon-fri", "duration": "8h"},
                                    {"nodes": "0", "schedule": "0 17 * * mon-fri", "duration": "16h"}]}),
                  drift_verdict="all", nodes=20)
    assert doc["summary"] == ("all at once or 10% at a time depending on the time, in 7 windows a week (see "
                              "`karplint budgets`)")


def test_invalid_budget_fails_closed():
    doc = rollout(pool({"budgets": [{"nodes": "5", "schedule": "@wrongly", "duration": "1h"}]}),
                  drift_verdict="all", nodes=10)
    assert doc["never"] is True
    assert doc["summary"] == ("never rolls out: budget 0 is invalid (schedule '@wrongly' is not a valid cron "
                              "expression), so Karpenter blocks every disruption")


def test_v1beta1_budgets_have_no_reasons():
    # v1beta1 has no `reasons`: a written one is not read, and the 0 budget blocks drift too
    doc = rollout(pool({"budgets": [{"nodes": "0", "reasons": ["Underutilized"]}]}, api="karpenter.sh/v1beta1"),
                  drift_verdict="all", nodes=10)
    assert brief(doc) == ([0], True, "none", "never", "never rolls out: a budget of 0 nodes is always active")
    assert "v1beta1 budgets have no reasons: they govern drift, consolidation and expiration alike" in doc["notes"]
    # the same budget on v1 governs only Underutilized
    assert rollout(pool({"budgets": [{"nodes": "0", "reasons": ["Underutilized"]}]}),
                   drift_verdict="all", nodes=10)["never"] is False


def test_some_nodes_drifted_the_pace_applies_to_them():
    doc = rollout(pool(), drift_verdict="some", nodes=10)
    assert doc["summary"] == "10% at a time (the drifted nodes only)"
    assert "the allowance is counted on all of the pool's nodes and spent on the drifted ones" in doc["notes"]


def test_budgets_do_not_limit_expiration_said_every_time():
    doc = rollout(pool({"budgets": [{"nodes": "0"}]}), drift_verdict="all", nodes=None)
    assert doc["notes"][-1].startswith("budgets do not limit expiration")


def test_monthly_schedule_is_one_example_week():
    doc = rollout(pool({"budgets": [{"nodes": "0", "schedule": "0 0 1 * *", "duration": "24h"}]}),
                  drift_verdict="all", nodes=None)
    assert "a schedule depends on the date: this week is one example" in doc["notes"]
    assert (doc["windows"], doc["blocked_minutes"]) == ("Tue-Sun UTC", 1440)  # 2024-01-01 is the week's Monday


# Karpenter's own budget arithmetic, translated (static cases: the fake clock's moment is a minute of our week).
# kubernetes-sigs/karpenter pkg/apis/v1/nodepool_budgets_test.go@6e7eab7 (v1.14.1), BeforeEach at L39-L99:
# budgets 10, 100, 100% (all reasons), 15 (Drifted, Underutilized), 5 (Drifted), all "* * * * *" for 1h (always
# active), and 0 for every reason "@weekly" for 1h.
UPSTREAM = [{"nodes": "10", "schedule": "* * * * *", "duration": "1h"},
            {"nodes": "100", "schedule": "* * * * *", "duration": "1h"},
            {"nodes": "100%", "schedule": "* * * * *", "duration": "1h"},
            {"nodes": "15", "schedule": "* * * * *", "duration": "1h", "reasons": ["Drifted", "Underutilized"]},
            {"nodes": "5", "schedule": "* * * * *", "duration": "1h", "reasons": ["Drifted"]},
            {"nodes": "0", "schedule": "@weekly", "duration": "1h",
             "reasons": ["Underutilized", "Drifted", "Empty"]}]


UPSTREAM_WEEK = datetime(2000, 6, 12)  # the Monday of the upstream fake clock's 2000-06-15 12:30:30 UTC


def test_upstream_minimum_budget_for_each_reason():
    # "should get the minimum budget for each reason" (L150): Drifted gets 5 of 100; the @weekly 0 budget blocks
    # Sunday 00:00-01:00 (the upstream clock, a Thursday noon, is outside it).
    doc = rollout(pool({"budgets": UPSTREAM}), drift_verdict="all", nodes=100, start=UPSTREAM_WEEK)
    assert doc["pace"] == "5 of 100 nodes at a time"
    assert doc["windows"] == "Mon-Sat; Sun 01:00-24:00 UTC"
    assert doc["blocked_minutes"] == 60


def test_upstream_zero_for_all_reasons_when_active():
    # "should return 0 for all reasons if a budget is active for all reasons" (L102): budget 5 always active
    budgets = [dict(b) for b in UPSTREAM]
    budgets[5].update(schedule="* * * * *", duration="1h")
    doc = rollout(pool({"budgets": budgets}), drift_verdict="all", nodes=100, start=UPSTREAM_WEEK)
    assert doc["never"] is True


def test_upstream_ignore_reason_budgets_when_inactive():
    # "should ignore reason-defined budgets when inactive" (L127): budgets 3 and 4 @yearly: Drifted gets 10
    budgets = [dict(b) for b in UPSTREAM]
    budgets[3]["schedule"] = budgets[4]["schedule"] = "@yearly"
    budgets[5].update(schedule="@yearly")
    doc = rollout(pool({"budgets": budgets}), drift_verdict="all", nodes=100, start=UPSTREAM_WEEK)
    assert doc["pace"] == "10 of 100 nodes at a time"


def test_upstream_unbounded_when_no_budget_is_active():
    # "should return MaxInt32 for all reasons when there are no active budgets" (L113): all @yearly
    budgets = [dict(b, schedule="@yearly") for b in UPSTREAM]
    doc = rollout(pool({"budgets": budgets}), drift_verdict="all", nodes=100, start=UPSTREAM_WEEK)
    assert (doc["pace"], doc["windows"]) == ("all at once", "always")


def test_upstream_budget_for_all_reasons_when_undefined():
    # "should return the budget for all disruption reasons when undefined" (L138): only budget 0 (10, no reasons)
    doc = rollout(pool({"budgets": UPSTREAM[:1]}), drift_verdict="all", nodes=100, start=UPSTREAM_WEEK)
    assert doc["pace"] == "10 of 100 nodes at a time"


# ------------------------------------------------------------------------------------------- the node count

def test_nodes_from_the_command_line_first(tmp_path):
    cfg = _config(tmp_path, "diff-nodes = 4\n")
    assert nodes_for(pool(), cli_nodes=7, config=cfg) == 7
    assert nodes_for(pool(), cli_nodes=None, config=cfg) == 4


def test_nodes_per_pool_table(tmp_path):
    cfg = _config(tmp_path, '[tool.karplint.diff-nodes]\ngeneral = 30\n"*" = 5\n')
    assert cfg.diff_nodes == {"general": 30, "*": 5}
    assert nodes_for(pool(name="general"), cli_nodes=None, config=cfg) == 30
    assert nodes_for(pool(name="gpu"), cli_nodes=None, config=cfg) == 5
    only = _config(tmp_path, '[tool.karplint.diff-nodes]\ngeneral = 30\n')
    assert nodes_for(pool(name="gpu"), cli_nodes=None, config=only) is None


def test_static_capacity_replicas_from_1_8(tmp_path):
    static = pool(extra={"replicas": 6})
    assert nodes_for(static, cli_nodes=None, config=None) == 6
    assert nodes_for(static, cli_nodes=None, config=None, release=V("1.8.0")) == 6
    assert nodes_for(static, cli_nodes=None, config=None, release=V("1.7.2")) is None  # no such field before
    assert nodes_for(pool(extra={"replicas": 6}, api="karpenter.sh/v1beta1"), cli_nodes=None, config=None) is None
    assert nodes_for(pool(), cli_nodes=None, config=None) is None


@pytest.mark.parametrize("body, message", [
    ("diff-nodes = -1\n", ":2: `diff-nodes` must be a whole number of nodes, 0 or more, or a table of NodePool "
                          "name = count (got '-1')"),
    ("diff-nodes = \"10\"\n", ":2: `diff-nodes` must be a whole number of nodes, 0 or more, or a table of "
                              "NodePool name = count (got '10')"),
    ('\n[tool.karplint.diff-nodes]\ngeneral = 3\ngpu = true\n',
     ":5: `diff-nodes.gpu` must be a whole number of nodes, 0 or more (got 'true')"),
    ("diff-node = 3\n", ":2: unknown configuration key `diff-node`; did you mean `diff-nodes`?"),
])
def test_invalid_setting_names_file_and_line(tmp_path, body, message):
    with pytest.raises(ConfigError) as exc:
        _config(tmp_path, body)
    assert str(exc.value) == f"{tmp_path / 'pyproject.toml'}{message}"


def _config(tmp_path: Path, body: str):
    (tmp_path / "pyproject.toml").write_text("[tool.karplint]\n" + body, encoding="utf-8")
    return load_config(None, tmp_path)


def test_uncertain_drift_says_the_pace_is_conditional():
    doc = rollout(pool(), drift_verdict="unknown", nodes=None)
    assert doc["notes"][0] == "whether the nodes drift is not certain: this is the pace if they do"
    assert "whether the nodes drift" not in " ".join(rollout(pool(), drift_verdict="all", nodes=None)["notes"])


def test_zero_nodes_assumed_replaces_nothing():
    doc = rollout(pool(extra={"replicas": 0}), drift_verdict="all", nodes=0)
    assert (doc["nodes"], doc["summary"]) == (0, "no node to replace (0 nodes assumed)")
