"""`karplint diff`'s behaviour changes: what a new consolidation, expiry, grace period, budget, limit or weight
means for the nodes already running, with the upstream source that decides it."""

from __future__ import annotations

import json

import pytest

from karplint.diff.behaviour import behaviour_changes, human
from karplint.diff.pairs import Pair
from karplint.model import Resource, as_resource
from karplint.readers.loader import decode, load



def nodepool(spec: dict, api: str = "karpenter.sh/v1") -> Resource:
    text = json.dumps({"apiVersion": api, "kind": "NodePool", "metadata": {"name": "general"}, "spec": spec})
    docs, problems = load(decode("nodepool.yaml", text.encode()))
    assert not problems
    return as_resource(docs[0])


def changes(base: dict, head: dict, api: str = "karpenter.sh/v1", lines=()) -> list[dict]:
    pair = Pair("NodePool", "general", None, nodepool(base, api), nodepool(head, api), list(lines))
    return behaviour_changes(pair)


def test_unchanged_added_removed_and_nodeclasses_have_none():
    pool = nodepool({"weight": 10})
    assert behaviour_changes(Pair("NodePool", "general", None, pool, pool)) == []
    assert behaviour_changes(Pair("NodePool", "general", None, None, pool)) == []
    assert behaviour_changes(Pair("NodePool", "general", None, pool, None)) == []
    assert behaviour_changes(Pair("EC2NodeClass", "default", None, pool, nodepool({"weight": 1}))) == []


def test_writing_the_default_is_no_change():
    assert changes({}, {"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
                                       "budgets": [{"nodes": "10%"}]},
                        "template": {"spec": {"expireAfter": "720h"}}}) == []


def test_when_empty_to_when_underutilized():
    [got] = changes({"disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s"}},
                    {"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "30s"}},
                    lines=[{"path": "spec.disruption.consolidationPolicy", "before": "WhenEmpty",
                            "after": "WhenEmptyOrUnderutilized", "line": 7}])
    assert got == {
        "field": "spec.disruption.consolidationPolicy", "before": "WhenEmpty", "after": "WhenEmptyOrUnderutilized",
        "meaning": "running nodes that are underutilized, not only empty ones, become candidates for consolidation "
                   "once consolidateAfter (30 seconds) has passed; their pods are moved to other nodes within the "
                   "budgets",
        "source": "kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation.go@6e7eab7", "line": 7}


def test_back_to_when_empty_and_static_pools_ignore_it():
    [got] = changes({}, {"disruption": {"consolidationPolicy": "WhenEmpty"}})
    assert got["before"] == "WhenEmptyOrUnderutilized"  # the CRD default
    assert got["meaning"] == ("only empty nodes are consolidated from now on; underutilized running nodes are left "
                              "as they are")
    [static] = changes({"replicas": 3}, {"replicas": 3, "disruption": {"consolidationPolicy": "WhenEmpty"}})
    assert static["meaning"].endswith("(ignored while the pool sets spec.replicas: Karpenter keeps that many nodes)")


@pytest.mark.parametrize("before, after, meaning", [
    ("30s", "Never", "consolidation stops: no running node is consolidated, empty or underutilized"),
    ("Never", "5m", "consolidation starts: running nodes become candidates 5 minutes after a pod was last "
                    "scheduled to or removed from them"),
    ("1h", "30s", "running nodes become consolidation candidates sooner: 30 seconds after a pod was last scheduled "
                  "to or removed from them (was 1 hour)"),
])
def test_consolidate_after(before, after, meaning):
    [got] = changes({"disruption": {"consolidateAfter": before}}, {"disruption": {"consolidateAfter": after}})
    assert (got["field"], got["meaning"]) == ("spec.disruption.consolidateAfter", meaning)
    assert got["source"] == "kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/consolidation.go@6e7eab7"


def test_v1_expire_after_applies_to_new_nodes():
    [got] = changes({"template": {"spec": {"expireAfter": "720h"}}}, {"template": {"spec": {"expireAfter": "168h"}}})
    assert got["field"] == "spec.template.spec.expireAfter"
    assert got["meaning"] == ("nodes launched from now on expire 7 days after launch (was 30 days); running nodes "
                              "keep the expireAfter they were launched with until they are replaced (the field is "
                              "part of the drift hash); expiration is forceful, not limited by the budgets")
    assert got["source"] == "kubernetes-sigs/karpenter pkg/controllers/nodeclaim/expiration/controller.go@6e7eab7#L74"
    [never] = changes({}, {"template": {"spec": {"expireAfter": "Never"}}})
    assert never["meaning"].startswith("nodes launched from now on never expire (was 30 days)")


def test_v1beta1_expire_after_applies_to_running_nodes():
    beta = "karpenter.sh/v1beta1"
    [got] = changes({"disruption": {"expireAfter": "720h"}}, {"disruption": {"expireAfter": "168h"}}, api=beta)
    assert (got["field"], got["meaning"]) == (
        "spec.disruption.expireAfter",
        "running nodes older than 7 days are expired once this applies (v1beta1 expiration follows the budgets)")
    assert got["source"] == ("kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/expiration.go"
                             "@9fc1bbe#L50")
    [later] = changes({}, {"disruption": {"expireAfter": "1440h"}}, api=beta)
    assert later["meaning"] == "running nodes expire later: at 60 days of age"
    [never] = changes({}, {"disruption": {"expireAfter": "Never"}}, api=beta)
    assert never["meaning"] == "running nodes no longer expire"


def test_termination_grace_period():
    [got] = changes({}, {"template": {"spec": {"terminationGracePeriod": "48h"}}})
    assert (got["field"], got["before"], got["after"]) == ("spec.template.spec.terminationGracePeriod", None, "48h")
    assert got["meaning"].startswith("nodes launched from now on are terminated at most 2 days after their deletion "
                                     "starts, even if PodDisruptionBudgets or do-not-disrupt pods still block the "
                                     "drain (was unset)")
    [gone] = changes({"template": {"spec": {"terminationGracePeriod": "48h"}}}, {})
    assert gone["meaning"].startswith("nodes launched from now on wait for their pods to drain without a deadline")
    # v1beta1 has no such field
    assert changes({}, {"template": {"spec": {"terminationGracePeriod": "48h"}}}, api="karpenter.sh/v1beta1") == []


def test_budget_opens_the_weekend_to_consolidation():
    base = {"disruption": {"budgets": [{"nodes": "0", "reasons": ["Underutilized"], "schedule": "0 0 * * sat",
                                        "duration": "48h"}, {"nodes": "10%"}]}}
    head = {"disruption": {"budgets": [{"nodes": "10%"}]}}
    [got] = changes(base, head)
    assert got["field"] == "spec.disruption.budgets"
    assert got["meaning"] == ("disruptions allowed: Underutilized: 10% of nodes at a time, weekdays only -> 10% of "
                              "nodes at a time, at any time (budgets govern consolidation and drift, not expiration)")


def test_budget_blocking_drift_v1beta1_governs_every_method():
    beta = "karpenter.sh/v1beta1"
    [got] = changes({}, {"disruption": {"budgets": [{"nodes": "0"}]}}, api=beta)
    assert got["meaning"] == ("disruptions allowed (every disruption method): all methods: 10% of nodes at a time, "
                              "at any time -> never (budgets govern consolidation and drift, not expiration)")


def test_rewritten_budgets_with_the_same_week_are_no_change():
    assert changes({"disruption": {"budgets": [{"nodes": "10%"}]}},
                   {"disruption": {"budgets": [{"nodes": "10%", "reasons": ["Drifted", "Empty", "Underutilized"]}]}}
                   ) == []


def test_limits_lowered_do_not_remove_nodes():
    [got] = changes({"limits": {"cpu": "1000", "memory": "1000Gi"}}, {"limits": {"cpu": "200", "memory": "2Ti"}})
    assert got["meaning"] == ("cpu lowered: Karpenter stops launching nodes for this pool once its nodes reach the "
                              "limits; it does not remove nodes that already exceed them")
    assert got["source"] == ("kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go@6e7eab7#L471 "
                             "(Limits.ExceededBy)")
    [raised] = changes({"limits": {"cpu": "100"}}, {"limits": {"cpu": "1k"}})
    assert raised["meaning"] == "the pool may launch more before it reaches its limits; running nodes are not touched"
    [removed] = changes({"limits": {"cpu": "100"}}, {})
    assert removed["meaning"] == "the pool has no limits any more: Karpenter may launch nodes for it without bound"


def test_weight_only_chooses_the_pool_for_new_nodes():
    [got] = changes({"weight": 10}, {"weight": 50})
    assert (got["field"], got["before"], got["after"]) == ("spec.weight", 10, 50)
    assert got["meaning"] == ("only the choice of pool for new nodes changes (pools with a higher weight are tried "
                              "first); running nodes are not touched")


@pytest.mark.parametrize("text, words", [("168h", "7 days"), ("90m", "90 minutes"), ("1h", "1 hour"),
                                         ("45s", "45 seconds"), ("Never", "never"), ("1h30m", "90 minutes")])
def test_durations_in_words(text, words):
    assert human("expireAfter", text) == words


def test_migration_renaming_when_underutilized_is_no_change():
    base = nodepool({"disruption": {"consolidationPolicy": "WhenUnderutilized"}}, api="karpenter.sh/v1beta1")
    head = nodepool({"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized"}})
    got = behaviour_changes(Pair("NodePool", "general", None, base, head))
    assert [(c["field"], c["meaning"]) for c in got] == [  # (the v1 CRD defaults consolidateAfter to 0s)
        ("spec.disruption.consolidateAfter", "running nodes become consolidation candidates 0 seconds after a pod "
                                             "was last scheduled to or removed from them (was unset)")]


def test_migration_budgets_compared_reason_by_reason():
    base = nodepool({"disruption": {"budgets": [{"nodes": "5"}]}}, api="karpenter.sh/v1beta1")
    same = nodepool({"disruption": {"budgets": [{"nodes": "5"}]}})
    assert [c["field"] for c in behaviour_changes(Pair("NodePool", "general", None, base, same))] == [
        "spec.disruption.consolidateAfter"]
    head = nodepool({"disruption": {"budgets": [{"nodes": "5"}, {"nodes": "0", "reasons": ["Drifted"]}]}})
    [_, budgets] = behaviour_changes(Pair("NodePool", "general", None, base, head))
    assert budgets["meaning"] == ("disruptions allowed: Drifted: 5 nodes at a time, at any time -> never (budgets "
                                  "govern consolidation and drift, not expiration)")
