"""Static NodePools (`spec.replicas`, kubernetes-sigs/karpenter v1.8.0+): KPL935.

Source: kubernetes-sigs/karpenter at v1.14.1 (the same code since v1.8.0): `pkg/controllers/disruption/staticdrift.go`
replaces a drifted static node by first reserving one node against `limits.nodes` (`NodePoolState.ReserveNodeCount`,
`pkg/controllers/state/statenodepool.go`), then launching the replacement, then removing the drifted node.
"""

from __future__ import annotations

from decimal import Decimal

from karplint.model.versions import V
from karplint.rules import rule
from karplint.schema.celext import parse_quantity

REPLICAS = ("spec", "replicas")
NODE_LIMIT = ("spec", "limits", "nodes")
STATIC_SINCE = V("1.8.0")  # first release whose NodePool CRD has spec.replicas


def _whole_number(value) -> int | None:
    """A node count written as an integer or an integral quantity string ("4"), else None (templated, fractional)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    q = parse_quantity(value) if isinstance(value, str) else None
    return int(q) if q is not None and q == q.to_integral_value() and q >= Decimal(0) else None


@rule("KPL935", "static-nodepool-no-room-to-replace", category="provisioning", severity="warning",
      summary="A static NodePool whose `limits.nodes` is not above `replicas` never replaces its drifted nodes",
      kinds=("NodePool",))
def static_nodepool_no_room_to_replace(res, ctx):
    if res.group != "karpenter.sh" or res.version != "v1" or ctx.karpenter_version < STATIC_SINCE:
        return
    replicas = _whole_number(res.get(REPLICAS))
    limit = _whole_number(res.get(NODE_LIMIT))
    if not replicas or limit is None or limit > replicas:
        return
    short = ("never reaches its replicas and " if limit < replicas else "")
    yield ctx.violation(
        res, NODE_LIMIT,
        f"static NodePool: limits.nodes ({limit}) is not above replicas ({replicas})\n"
        "help: set limits.nodes to replicas plus the nodes Karpenter may replace at once (at least "
        f"{replicas + 1}), or remove it\n"
        f"note: so the pool {short}never replaces a drifted node: static drift launches the replacement first and reserves it against limits.nodes; with the pool at "
        "its limit no replacement is granted and drift stays blocked whatever the budgets allow (kubernetes-sigs/"
        "karpenter pkg/controllers/disruption/staticdrift.go; aws/karpenter-provider-aws#8873)")
