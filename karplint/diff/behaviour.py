"""What a NodePool's behavioural changes mean for the nodes already running: consolidation, expiry, termination
grace period, budgets, limits and weight. (Whether a change drifts nodes is `drift.py`'s; this says what the new
value does.)

Sources: kubernetes-sigs/karpenter at v1.14.1 (6e7eab7a0f485d7225eb98995fad9b66c79b322b) for v1 and v0.37.7
(9fc1bbe2ddb1b3debcec27e82ed43c004122953a) for v1beta1; the CRD defaults of karpenter.sh_nodepools.yaml.
"""

from __future__ import annotations

from karplint.disruption.budgets import read_budgets, reasons_for, timelines
from karplint.model.durations import parse_field
from karplint.wording import counted

CORE = "kubernetes-sigs/karpenter"
V1 = "6e7eab7"  # v1.14.1
V1BETA1 = "9fc1bbe"  # v0.37.7
DOCS = "https://karpenter.sh/docs/concepts/disruption/"

# (v1 path, v1beta1 path, CRD default v1, CRD default v1beta1); None: the field does not exist in that API
FIELDS = {
    "consolidationPolicy": (("spec", "disruption", "consolidationPolicy"),
                            ("spec", "disruption", "consolidationPolicy"),
                            "WhenEmptyOrUnderutilized", "WhenUnderutilized"),
    "consolidateAfter": (("spec", "disruption", "consolidateAfter"), ("spec", "disruption", "consolidateAfter"),
                         "0s", None),
    "expireAfter": (("spec", "template", "spec", "expireAfter"), ("spec", "disruption", "expireAfter"),
                    "720h", "720h"),
    "terminationGracePeriod": (("spec", "template", "spec", "terminationGracePeriod"), None, None, None),
    "budgets": (("spec", "disruption", "budgets"), ("spec", "disruption", "budgets"), None, None),
    "limits": (("spec", "limits"), ("spec", "limits"), None, None),
    "weight": (("spec", "weight"), ("spec", "weight"), None, None),
}


def behaviour_changes(pair) -> list[dict]:
    """One entry per behavioural field whose effective value differs between the two sides of a changed pool."""
    if pair.kind != "NodePool" or pair.base is None or pair.head is None:
        return []
    base, head = pair.base, pair.head
    out = []
    for name, (v1_path, beta_path, v1_default, beta_default) in FIELDS.items():
        before, before_path = _value(base, v1_path, beta_path, v1_default, beta_default)
        after, after_path = _value(head, v1_path, beta_path, v1_default, beta_default)
        if before_path is None and after_path is None:
            continue
        if name == "budgets":
            if not _budget_parts(base, head):
                continue
        elif _same(name, before, after):
            continue
        path = after_path or before_path
        meaning, source = MEANINGS[name](before, after, head, base)
        out.append({"field": ".".join(path), "before": before, "after": after, "meaning": meaning,
                    "source": source, "line": _line(pair, ".".join(path))})
    return out


# v1 renamed v1beta1's WhenUnderutilized (same behaviour): a migration that only renames it changes nothing
SAME_POLICY = {"WhenUnderutilized": "WhenEmptyOrUnderutilized"}


def _same(name: str, before, after) -> bool:
    if name == "consolidationPolicy":
        return SAME_POLICY.get(before, before) == SAME_POLICY.get(after, after)
    return before == after


def _value(res, v1_path, beta_path, v1_default, beta_default):
    """(effective value, path) of a field on one side: as written, else its CRD default."""
    v1 = res.version == "v1"
    path = v1_path if v1 else beta_path
    if path is None:
        return None, None
    value = res.get(path)
    if value is None:
        value = v1_default if v1 else beta_default
    return _plain(value), path


def _plain(value):
    """JSON-ready data (the loader's mappings and sequences as dict and list)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _line(pair, field: str) -> int | None:
    for change in pair.changes or ():
        path = change.get("path") or ""
        if path == field or path.startswith(field + ".") or path.startswith(field + "["):
            return change.get("line")
    return None


def human(field: str, text) -> str:
    """A duration field's value for a person: "7 days", "30 minutes", "never"; as written when unreadable."""
    seconds = parse_field(field, text) if isinstance(text, str) else None
    if seconds is None:
        return "unset" if text is None else repr(text)
    if seconds == float("inf"):
        return "never"
    seconds = int(seconds)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds and seconds % size == 0:
            return counted(seconds // size, unit)
    return counted(seconds, "second")


def _seconds(field: str, text) -> float | None:
    return parse_field(field, text) if isinstance(text, str) else None


# -------------------------------------------------------------------------------------------------- meanings

def _consolidation_policy(before, after, head, base):
    after_policy = str(after)
    if after_policy in ("WhenEmptyOrUnderutilized", "WhenUnderutilized"):
        wait = human("consolidateAfter", head.get(("spec", "disruption", "consolidateAfter"), "0s"))
        meaning = ("running nodes that are underutilized, not only empty ones, become candidates for consolidation"
                   + (f" once consolidateAfter ({wait}) has passed" if head.version == "v1" else "")
                   + "; their pods are moved to other nodes within the budgets")
    elif after_policy == "WhenEmpty":
        meaning = "only empty nodes are consolidated from now on; underutilized running nodes are left as they are"
    else:
        meaning = f"{after_policy!r} is not a consolidation policy Karpenter knows"
    return _static_note(meaning, head), _src(head, "pkg/controllers/disruption/consolidation.go")


def _consolidate_after(before, after, head, base):
    b, a = _seconds("consolidateAfter", before), _seconds("consolidateAfter", after)
    if a == float("inf"):
        meaning = "consolidation stops: no running node is consolidated, empty or underutilized"
    elif b == float("inf") and a is not None:
        meaning = (f"consolidation starts: running nodes become candidates {human('consolidateAfter', after)} "
                   "after a pod was last scheduled to or removed from them")
    elif a is not None and b is not None:
        sooner = "sooner" if a < b else "later"
        meaning = (f"running nodes become consolidation candidates {sooner}: {human('consolidateAfter', after)} "
                   f"after a pod was last scheduled to or removed from them (was {human('consolidateAfter', before)})")
    elif a is not None:  # (from unset: a v1beta1 pool migrated to v1, whose CRD defaults it to 0s)
        meaning = (f"running nodes become consolidation candidates {human('consolidateAfter', after)} after a pod "
                   "was last scheduled to or removed from them (was unset)")
    else:
        meaning = f"consolidateAfter is now {after!r}, which Karpenter's CRD does not accept"
    path = ("pkg/controllers/nodeclaim/disruption/consolidation.go" if head.version == "v1"
            else "pkg/controllers/nodeclaim/disruption/emptiness.go")  # (v1beta1: only WhenEmpty waits)
    return _static_note(meaning, head), _src(head, path)


def _expire_after(before, after, head, base):
    b, a = _seconds("expireAfter", before), _seconds("expireAfter", after)
    if a is None:
        return f"expireAfter is now {after!r}, which Karpenter's CRD does not accept", _src(head, "")
    if head.version == "v1":
        # v1 copies expireAfter into each NodeClaim at launch; the expiration controller reads the NodeClaim's.
        new = "never expire" if a == float("inf") else f"expire {human('expireAfter', after)} after launch"
        meaning = (f"nodes launched from now on {new} (was {human('expireAfter', before)}); running nodes keep the "
                   "expireAfter they were launched with until they are replaced (the field is part of the drift "
                   "hash); expiration is forceful, not limited by the budgets")
        return meaning, f"{CORE} pkg/controllers/nodeclaim/expiration/controller.go@{V1}#L74"
    # v1beta1 reads the NodePool's expireAfter for every node, running ones included.
    if a == float("inf"):
        meaning = "running nodes no longer expire"
    elif b is not None and a < b:
        meaning = (f"running nodes older than {human('expireAfter', after)} are expired once this applies "
                   "(v1beta1 expiration follows the budgets)")
    else:
        meaning = f"running nodes expire later: at {human('expireAfter', after)} of age"
    return meaning, f"{CORE} pkg/controllers/nodeclaim/disruption/expiration.go@{V1BETA1}#L50"


def _termination_grace_period(before, after, head, base):
    if after is None:
        meaning = ("nodes launched from now on wait for their pods to drain without a deadline (PodDisruptionBudgets "
                   "and do-not-disrupt pods can hold a node forever); running nodes keep theirs until replaced")
    else:
        meaning = (f"nodes launched from now on are terminated at most {human('terminationGracePeriod', after)} "
                   "after their deletion starts, even if PodDisruptionBudgets or do-not-disrupt pods still block "
                   f"the drain (was {human('terminationGracePeriod', before)}); running nodes keep theirs until "
                   "replaced (the field is part of the drift hash)")
    return meaning, f"{CORE} pkg/controllers/node/termination/controller.go@{V1}#L244"


def _budgets(before, after, head, base):
    parts = _budget_parts(base, head)
    label = "every disruption method" if head.version != "v1" else None
    meaning = ("disruptions allowed" + (f" ({label})" if label else "") + ": " + "; ".join(parts)
               + " (budgets govern consolidation and drift, not expiration)")
    return meaning, f"{CORE} pkg/apis/v1/nodepool.go@{V1}#L382 (Budget.GetAllowedDisruptions)"


def _budget_parts(base, head) -> list[str]:
    """"Reason: before -> after" per reason whose week differs (a v1beta1 side's one timeline stands for every
    reason of a v1 side: a migration compares each reason with it)."""
    b, a = _budget_terms(base), _budget_terms(head)
    reasons = list(a) if "all methods" not in a else list(b) if "all methods" not in b else ["all methods"]

    def of(terms: dict, reason: str) -> str:
        return terms[reason] if reason in terms else terms["all methods"]

    return [f"{r}: {of(b, r)} -> {of(a, r)}" for r in reasons if of(b, r) != of(a, r)]


def _budget_terms(pool) -> dict[str, str]:
    """Per reason, its pace and windows in words ("10% of nodes at a time, at any time")."""
    from karplint.diff.rollout import describe_timeline

    v1 = pool.version == "v1"
    lines = timelines(read_budgets(pool.get(("spec", "disruption")), v1=v1), v1=v1)
    return {("all methods" if reason == "all" else reason): describe_timeline(lines[reason])
            for reason in reasons_for(v1)}


def _limits(before, after, head, base):
    lowered = _lowered(before, after)
    if after is None:
        meaning = "the pool has no limits any more: Karpenter may launch nodes for it without bound"
    elif lowered:
        meaning = (f"{', '.join(lowered)} lowered: Karpenter stops launching nodes for this pool once its nodes "
                   "reach the limits; it does not remove nodes that already exceed them")
    else:
        meaning = "the pool may launch more before it reaches its limits; running nodes are not touched"
    return meaning, f"{CORE} pkg/controllers/provisioning/provisioner.go@{V1}#L471 (Limits.ExceededBy)"


def _lowered(before, after) -> list[str]:
    """The resources whose limit is newly set or smaller (quantities compared as Kubernetes reads them)."""
    from karplint.schema.celext import parse_quantity

    before = before if isinstance(before, dict) else {}
    after = after if isinstance(after, dict) else {}
    out = []
    for name, value in after.items():
        new = parse_quantity(str(value))
        old = parse_quantity(str(before[name])) if name in before else None
        if name not in before or (new is not None and old is not None and new < old):
            out.append(name)
    return out


def _weight(before, after, head, base):
    return ("only the choice of pool for new nodes changes (pools with a higher weight are tried first); running "
            "nodes are not touched", f"{CORE} pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go@{V1}#L71")


MEANINGS = {
    "consolidationPolicy": _consolidation_policy,
    "consolidateAfter": _consolidate_after,
    "expireAfter": _expire_after,
    "terminationGracePeriod": _termination_grace_period,
    "budgets": _budgets,
    "limits": _limits,
    "weight": _weight,
}


def _src(res, path: str) -> str:
    return f"{CORE} {path}@{V1 if res.version == 'v1' else V1BETA1}" if path else DOCS


def _static_note(meaning: str, head) -> str:
    """Static-capacity pools (spec.replicas) ignore the consolidation fields (the v1.8+ CRD's description)."""
    if head.version == "v1" and head.get(("spec", "replicas")) is not None:
        return meaning + " (ignored while the pool sets spec.replicas: Karpenter keeps that many nodes)"
    return meaning
