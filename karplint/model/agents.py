"""Node agents that remove a readiness taint once they run on a node: the taints NodePools must list in
`startupTaints` when the agent is installed.

Karpenter applies `startupTaints` at registration and treats them as temporary; a taint that an agent adds or
expects but Karpenter does not know about makes pending pods look unschedulable on the new node, so Karpenter
launches more nodes (aws/karpenter-provider-aws#6355); the same taint under `taints` keeps pods off the node
for good (aws/karpenter-provider-aws#5293). Initialization waits for every startup taint to be gone, matched by
key and effect (core `pkg/controllers/nodeclaim/lifecycle/initialization.go`; aws/karpenter-provider-aws#6355).

Every entry says where its facts come from. Detection hints (DaemonSet names, image repositories, Helm chart
names) are used by `karplint.model.detect` to find the agent in the linted files.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Agent:
    name: str  # short id, also the `[cluster] cni` value for CNIs
    title: str
    taint_key: str
    effect: str  # the effect to add when none is known from the agent's configuration
    removed_by: str  # what removes the taint, and how it matches
    daemonsets: tuple[str, ...]  # DaemonSet names that run the agent
    images: tuple[str, ...]  # image repository suffixes ("cilium/cilium" matches quay.io/cilium/cilium:v1.16)
    charts: tuple[str, ...]  # Helm chart names that install it
    linux_only: bool
    sources: tuple[str, ...]
    missing: str = ""  # what goes wrong on nodes without the startup taint
    cni: bool = False


AGENTS: tuple[Agent, ...] = (
    Agent(
        name="cilium",
        title="Cilium",
        taint_key="node.cilium.io/agent-not-ready",
        effect="NoExecute",
        removed_by="cilium-operator removes every taint with this key once the Cilium agent pod on the node is "
                   "ready (effect ignored); with `set-cilium-node-taints` it also adds `<key>:NoSchedule` to nodes "
                   "whose agent is scheduled but not ready",
        daemonsets=("cilium",),
        images=("cilium/cilium",),
        charts=("cilium",),
        linux_only=True,
        cni=True,
        missing="pods can start before the Cilium agent is ready and get unmanaged networking, and when the agent "
                "taints the node Karpenter launches extra nodes (aws/karpenter-provider-aws#6355)",
        sources=(
            "aws/karpenter-provider-aws#6355 (unknown agent taint -> extra nodes)",
            "Karpenter docs concepts/nodepools.md (startupTaints example, NoExecute) and faq.md (NoSchedule)",
            "cilium/cilium Documentation/installation/taints.rst (key, `agent-not-ready-taint-key`, NoExecute recommended)",
            "cilium/cilium operator/watchers/node_taint.go (removeNodeTaint matches the key only; setNodeTaint adds NoSchedule)",
        ),
    ),
    Agent(
        name="aws-ebs-csi-driver",
        title="Amazon EBS CSI driver",
        taint_key="ebs.csi.aws.com/agent-not-ready",
        effect="NoExecute",
        removed_by="the ebs-csi-node pod removes the taint from its node once the driver is registered",
        daemonsets=("ebs-csi-node",),
        images=("aws-ebs-csi-driver", "ebs-csi-driver"),
        charts=("aws-ebs-csi-driver",),
        linux_only=False,
        missing="pods with volumes can be scheduled before the CSI node driver has registered on the node, and "
                "their volumes fail to attach or mount until it has",
        sources=(
            "https://karpenter.sh/docs/concepts/nodepools/ (startupTaints: EBS/EFS/FSx `*.csi.aws.com/agent-not-ready`, NoExecute)",
            "kubernetes-sigs/aws-ebs-csi-driver#1949 (CSINode allocatable set before removing the startup taint)",
        ),
    ),
    Agent(
        name="aws-efs-csi-driver",
        title="Amazon EFS CSI driver",
        taint_key="efs.csi.aws.com/agent-not-ready",
        effect="NoExecute",
        removed_by="the efs-csi-node pod removes the taint from its node once the driver runs",
        daemonsets=("efs-csi-node",),
        images=("aws-efs-csi-driver", "efs-csi-driver"),
        charts=("aws-efs-csi-driver",),
        linux_only=True,
        missing="pods with volumes can be scheduled before the CSI node driver has registered on the node, and "
                "their volumes fail to attach or mount until it has",
        sources=("https://karpenter.sh/docs/concepts/nodepools/ (startupTaints: EBS/EFS/FSx `*.csi.aws.com/agent-not-ready`, NoExecute)",),
    ),
    Agent(
        name="aws-fsx-csi-driver",
        title="Amazon FSx for Lustre CSI driver",
        taint_key="fsx.csi.aws.com/agent-not-ready",
        effect="NoExecute",
        removed_by="the fsx-csi-node pod removes the taint from its node once the driver runs",
        daemonsets=("fsx-csi-node",),
        images=("aws-fsx-csi-driver", "fsx-csi-driver"),
        charts=("aws-fsx-csi-driver",),
        linux_only=True,
        missing="pods with volumes can be scheduled before the CSI node driver has registered on the node, and "
                "their volumes fail to attach or mount until it has",
        sources=(
            "https://karpenter.sh/docs/concepts/nodepools/ (startupTaints: EBS/EFS/FSx `*.csi.aws.com/agent-not-ready`, NoExecute)",
            "aws/karpenter-provider-aws#5293 (FSx agent taint under `taints` blocks provisioning)",
        ),
    ),
)

BY_NAME = {a.name: a for a in AGENTS}
BY_TAINT_KEY = {a.taint_key: a for a in AGENTS}

# Taints Karpenter itself treats as ephemeral during initialization: nothing needs to list or remove them
# (core pkg/controllers/nodeclaim/lifecycle/initialization.go).
EPHEMERAL_TAINT_KEYS = (
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.cloudprovider.kubernetes.io/uninitialized",
    "karpenter.sh/unregistered",
)
EPHEMERAL_TAINT_PREFIXES = ("readiness.k8s.io/",)


def is_ephemeral(key: str) -> bool:
    return key in EPHEMERAL_TAINT_KEYS or key.startswith(EPHEMERAL_TAINT_PREFIXES)
