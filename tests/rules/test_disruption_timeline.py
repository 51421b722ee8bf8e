"""Rules on the disruption simulation (KPL420-KPL424), EC2NodeClass AMI consistency (KPL260, KPL261) and the
0.37.0 WhenEmpty advisory of KPL402."""

from __future__ import annotations

from pathlib import Path

from karplint.disruption.budgets import read_budgets, timelines
from karplint.rules.disruption_timeline import complement
from karplint.testing import codes, lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "disruption_timeline"


def run(name: str, select: str, **kw):
    return lint({name: (FIXTURES / name).read_text()}, config={"select": [select]}, **kw)


def test_window_bad():
    found = run("window_bad.yaml", "KPL420")
    assert codes(found) == [("KPL420", 11, 9), ("KPL420", 31, 9), ("KPL420", 48, 9)]
    first, drift, beta = (f.message for f in found)
    assert first.splitlines()[0] == "outside this budget's window, Drifted, Empty and Underutilized are unlimited"
    assert ('note: budget `nodes: "20%"` limits Drifted, Empty and Underutilized only for 4h after each `0 2 * * *` '
            '(UTC)') in first
    assert '`{nodes: "0", schedule: "0 6 * * *", duration: 20h}`' in first
    assert "140h of the 168h week" in first and "Mon 00:00–Mon 02:00 UTC" in first
    assert "Drifted is unlimited" in drift.splitlines()[0]
    assert '`{nodes: "0", schedule: "0 4 * * mon", duration: 162h, reasons: [Drifted]}`' in drift
    assert "every disruption method" in beta  # v1beta1: budgets have no reasons
    assert all(f.severity == "warning" for f in found)


def test_window_good():
    assert run("window_good.yaml", "KPL420") == []


def test_suggested_complement_closes_the_week():
    for schedule, duration, reasons in (("0 2 * * *", "4h", None), ("0 22 * * sun", "6h", ["Drifted"]),
                                        ("30 23 * * fri", "90m", None)):
        window = {"nodes": "1", "schedule": schedule, "duration": duration}
        if reasons:
            window["reasons"] = reasons
        budget = read_budgets({"budgets": [window]})[0]
        comp_schedule, comp_duration = complement(budget)
        closed = {"nodes": "0", "schedule": comp_schedule, "duration": comp_duration}
        if reasons:
            closed["reasons"] = reasons
        for reason, tl in timelines(read_budgets({"budgets": [window, closed]})).items():
            if reasons is None or reason in reasons:
                assert tl.unlimited_minutes() == 0, (schedule, reason)
                # the window itself still allows 1 (min(1, 0) would be 0 if they overlapped)
                assert any(s.allowed(10) == 1 for s in tl.segments)


def test_pdb_bad():
    found = run("pdb_bad.yaml", "KPL421")
    assert codes(found) == [("KPL421", 7, 17), ("KPL421", 33, 19), ("KPL421", 61, 17)]
    api, db, cache = (f.message for f in found)
    assert api.startswith("minAvailable 1 allows no eviction of the 1 pod it selects: Deployment/api (1 replica)")
    assert "wait forever on general (no terminationGracePeriod)" in api
    assert "maxUnavailable 0%" in db and "until terminationGracePeriod runs out on stateful (2h)" in db
    assert "NodePool stateful" in db and "general" not in db  # the StatefulSet only lands on `stateful`
    assert "minAvailable 100%" in cache and "2 pods" in cache


def test_pdb_good():
    assert run("pdb_good.yaml", "KPL421") == []


def test_pdb_without_nodepool_is_quiet():
    text = (FIXTURES / "pdb_bad.yaml").read_text().split("---\napiVersion: karpenter.sh/v1")[0]
    assert lint(text, config={"select": ["KPL421"]}) == []


def test_durations_bad():
    found = run("durations_bad.yaml", "KPL42")
    assert codes(found) == [("KPL423", 8, 23), ("KPL422", 11, 20), ("KPL423", 22, 23), ("KPL424", 35, 20),
                            ("KPL424", 46, 20), ("KPL427", 59, 31), ("KPL428", 72, 16), ("KPL428", 75, 16)]
    assert "help: write `key: eks.amazonaws.com/instance-category`" in found[6].message
    assert "never launches the instance sizes this requirement allows (t3.small, t3a.small)" in found[7].message
    assert "terminationGracePeriod 24h is not shorter than expireAfter 24h" in found[5].message
    assert "expireAfter 720h (the default)" in found[2].message
    assert "`Never`" in found[3].message
    assert "480h plus terminationGracePeriod 48h" in found[4].message


def test_durations_good():
    assert run("durations_good.yaml", "KPL42") == []


def test_min_expire_after_option():
    text = (FIXTURES / "durations_bad.yaml").read_text()
    found = lint(text, config={"select": ["KPL422"], "options": {"min-expire-after": "10m"}})
    assert found == []


def test_nodeclass_bad():
    found = run("nodeclass_bad.yaml", "KPL26")
    assert codes(found) == [("KPL260", 9, 13), ("KPL260", 10, 21), ("KPL260", 24, 21), ("KPL261", 38, 13),
                            ("KPL261", 53, 13), ("KPL262", 70, 13), ("KPL263", 88, 25)]
    assert found[0].message.splitlines()[0] == "amiSelectorTerms[0].name selects an EKS AL2 AMI but amiFamily is AL2023"
    assert "windows-build" in found[2].message
    assert "`<powershell>`" in found[4].message
    assert all(f.severity == "error" for f in found[:6])
    assert "without userData" in found[5].message and "`amiFamily: Bottlerocket`" in found[5].message
    assert found[6].severity == "warning" and "`rootVolume: true`" in found[6].message


def test_nodeclass_good():
    assert run("nodeclass_good.yaml", "KPL26") == []


def test_when_empty_advisory_on_0370():
    name = "when_empty_0370.yaml"
    text = (FIXTURES.parent / "disruption" / name).read_text()
    found = lint({name: text}, config={"select": ["KPL402"]}, karpenter_version="0.37.0")
    assert codes(found) == [("KPL402", 8, 5)]
    assert "aws/karpenter-provider-aws#7523" in found[0].message
    assert "newest 0.37.x patch (v0.37.7)" in found[0].message
    assert "upgrade to 0.37.1" not in found[0].message
    assert lint({name: text}, config={"select": ["KPL402"]}, karpenter_version="0.37.7") == []


def test_kpl406_scheduled_budget_that_never_lapses():
    text = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: blueprint
spec:
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
    budgets:
      - nodes: "0"
        schedule: "0 0 * * *"
        duration: 24h
      - nodes: "0"
        schedule: "0 */6 * * *"
        duration: 5h
      - nodes: "0"
        schedule: "0 0 * * mon"
        duration: 168h
        reasons: [Drifted]
"""
    found = lint(text, config={"select": ["KPL406"]})
    assert codes(found) == [("KPL406", 10, 16), ("KPL406", 16, 16)]
    assert "active for 24h after each `0 0 * * *` (UTC), every minute of the week" in found[0].message
    assert "make `duration` shorter" in found[0].message
    assert "blocks Drifted for good" in found[1].parts[0] and "every minute of the week" in found[1].message


def test_expiration_and_forgotten_reasons():
    found = run("budgets_reasons.yaml", "KPL425")
    assert codes(found) == [("KPL425", 11, 16)]
    assert found[0].parts[0] == "budgets block every reason 40h a week, but the default expireAfter 720h still replaces nodes then"
    assert ("note: Drifted, Empty and Underutilized are blocked 40h a week (first: Mon 09:00–Mon 17:00 UTC)"
            in found[0].message)
    assert run("budgets_reasons.yaml", "KPL425", karpenter_version="0.37.7") == []  # budgets limited expiration
    found = run("budgets_reasons.yaml", "KPL426")
    assert codes(found) == [("KPL426", 27, 5)]
    assert found[0].message.startswith("Empty has no disruption budget: unlimited at all times, while Drifted and "
                                       "Underutilized are limited")


def test_reported_configurations():
    """Configurations from closed upstream reports: the rule that now explains each."""
    found = run("issue_reports.yaml", "KPL42")
    by_pool: dict[str, list[str]] = {}
    for f in found:
        by_pool.setdefault(f.resource["name"] if f.resource else "?", []).append(f.code)
    assert by_pool == {
        "aws-7026": ["KPL426", "KPL420"],  # Drifted never limited; Underutilized unlimited 20h a day
        "sigs-2183": ["KPL420"],  # Drifted/Underutilized unlimited outside Monday 01:00-05:00
        "sigs-1939": ["KPL420"],  # Empty/Underutilized unlimited outside working hours
        "aws-7864": ["KPL420"],  # Drifted/Underutilized unlimited 21h a day
        "sigs-1718": ["KPL426"],  # Empty never limited
        "aws-8290": ["KPL420"],  # Drifted unlimited outside 12:00-15:00 UTC (noon, not midnight)
        "istiod": ["KPL421"],
    }
    drift = next(f for f in found if f.resource["name"] == "sigs-2183")
    noon = next(f for f in found if f.resource["name"] == "aws-8290")
    assert "first window: Mon 12:00–Mon 15:00 UTC" in noon.message
    # Empty is limited at all times by its own budget: only the other two are open outside the window
    assert drift.parts[0] == "outside this budget's window, Drifted and Underutilized are unlimited"
    assert 'budget `nodes: "35%"` limits Drifted and Underutilized only for 4h after each `0 1 * * mon` (UTC)' in drift.message
