"""A workload's hostPort that a DaemonSet already takes on every node the workload can use (KPL913).

A host port is one per node (IP, protocol, port). A DaemonSet that runs on every node the workload's pods can land on
and binds the same port leaves them no node: the scheduler reports "didn't have free ports for the requested pod
ports", and Karpenter, which before kubernetes-sigs/karpenter#2102 did not look at the DaemonSets' host ports when
it made a NodeClaim, launched node after node for them (kubernetes-sigs/karpenter#2083).
"""

from __future__ import annotations

from typing import Iterator

from karplint.model import Model, Resource, of_kinds
from karplint.readers.document import Document
from karplint.rules import rule


def pods_with_host_ports(doc: Document, res: Resource | None) -> bool:
    """Workloads (DaemonSets included) whose pod template binds a host port."""
    if res is None or res.pod_template is None:
        return False
    spec = res.get(res.pod_template[1])
    if not isinstance(spec, dict):
        return False
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or () if isinstance(spec.get(key), list) else ():
            ports = c.get("ports") if isinstance(c, dict) else None
            if isinstance(ports, list) and any(isinstance(p, dict) and isinstance(p.get("hostPort"), int)
                                               and p["hostPort"] > 0 for p in ports):
                return True
    return False


def _unconstrained(pod) -> bool:
    """The pod may land on any node (no nodeSelector, no required node affinity)."""
    return pod.terms is not None and all(not term.by_key for term in pod.terms)


def _tolerates(daemon_tolerations: list, t: dict) -> bool:
    """Whether the DaemonSet tolerates whatever taint the toleration `t` lets the workload's pods through."""
    for d in daemon_tolerations:
        if d.get("operator") == "Exists" and not d.get("key") and not d.get("effect"):
            return True  # (tolerates every taint)
        if d.get("key") != t.get("key") or (d.get("effect") and d.get("effect") != t.get("effect")):
            continue
        if d.get("operator") == "Exists" or (d.get("value") == t.get("value") and t.get("operator") != "Exists"):
            return True
    return False


def _clash(a: tuple[str, int], b: tuple[str, int]) -> bool:
    """Same port and protocol, on the same host IP or on all of them (0.0.0.0)."""
    (a_where, a_port), (b_where, b_port) = a, b
    if a_port != b_port or "?" in (a_where, b_where):
        return False
    a_ip, _, a_proto = a_where.rpartition("/")
    b_ip, _, b_proto = b_where.rpartition("/")
    return a_proto == b_proto and (a_ip == b_ip or "0.0.0.0" in (a_ip, b_ip))


@rule("KPL913", "hostport-taken-by-daemonset", category="provisioning", severity="warning",
      summary="A workload binds a hostPort that a DaemonSet takes on every node its pods can use",
      reads=(pods_with_host_ports, of_kinds("DaemonSet")))
def hostport_taken_by_daemonset(model: Model, ctx) -> Iterator:
    from karplint.provisioning.pods import read_pod
    from karplint.provisioning.scope import directory_of, related

    daemons = []
    for res in model.of_kind("DaemonSet"):
        if not pods_with_host_ports(res.doc, res):
            continue
        pod = read_pod(res)
        if pod is not None and not pod.unknown and _unconstrained(pod):
            daemons.append(pod)
    if not daemons:
        return
    for res in model.workloads():
        if res.kind == "DaemonSet" or not ctx.in_focus(res) or not pods_with_host_ports(res.doc, res):
            continue
        pod = read_pod(res)
        if pod is None or pod.unknown:
            continue
        where = directory_of(res)
        for d in daemons:
            if not related(where, directory_of(d.res)):
                continue  # (another cluster's DaemonSet, perhaps)
            if not all(_tolerates(d.tolerations, t) for t in pod.tolerations):
                continue  # (a node the workload tolerates may keep the DaemonSet off)
            clash = next(((mine, theirs) for mine in sorted(pod.host_ports) for theirs in sorted(d.host_ports)
                          if _clash(mine, theirs)), None)
            if clash is None:
                continue
            (ip_proto, port) = clash[0]
            ip, _, proto = ip_proto.rpartition("/")
            yield ctx.violation(
                res, ("metadata", "name"),
                f"{res.kind} `{res.name}`: hostPort {port}/{proto} is taken by DaemonSet `{d.res.name}`\n"
                "help: use another hostPort (or none: a Service or the pod's own IP), or keep the DaemonSet off "
                "the nodes meant for these pods\n"
                f"note: the DaemonSet runs on every node these pods can use and binds the same port there; one host "
                "port per node: the pods stay Pending (\"didn't have free ports\"), and Karpenter "
                "releases before kubernetes-sigs/karpenter#2102 launched node after node for them",
                severity=None)
            break
