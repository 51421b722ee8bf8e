"""The resources of a run: what rules look at.

`Resource` wraps a `Document` that looks like a Kubernetes object (apiVersion + kind); `Model` holds all of
them across every file of the run so rules can look across files (nodeClassRef, Cilium, workloads).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from karplint.readers.document import Document, Path
from karplint.model.versions import KARPENTER_GROUPS, KARPENTER_KINDS

# Where the pod template lives in each pod-bearing workload kind (metadata path, spec path).
POD_TEMPLATES: dict[str, tuple[Path, Path]] = {
    "Pod": (("metadata",), ("spec",)),
    "Deployment": (("spec", "template", "metadata"), ("spec", "template", "spec")),
    "StatefulSet": (("spec", "template", "metadata"), ("spec", "template", "spec")),
    "DaemonSet": (("spec", "template", "metadata"), ("spec", "template", "spec")),
    "ReplicaSet": (("spec", "template", "metadata"), ("spec", "template", "spec")),
    "ReplicationController": (("spec", "template", "metadata"), ("spec", "template", "spec")),
    "Job": (("spec", "template", "metadata"), ("spec", "template", "spec")),
    "CronJob": (
        ("spec", "jobTemplate", "spec", "template", "metadata"),
        ("spec", "jobTemplate", "spec", "template", "spec"),
    ),
}


@dataclass
class Resource:
    doc: Document
    api_version: str
    kind: str
    _memo: dict | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def memo(self) -> dict:
        """What rules work out about this resource once and ask again (each under its own key)."""
        if self._memo is None:
            self._memo = {}
        return self._memo

    @property
    def data(self) -> dict:
        return self.doc.data

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]

    @property
    def metadata(self) -> dict:
        meta = self.data.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def name(self) -> str | None:
        name = self.metadata.get("name")
        return str(name) if name is not None else None

    @property
    def namespace(self) -> str | None:
        ns = self.metadata.get("namespace")
        return str(ns) if ns is not None else None

    @property
    def spec(self) -> dict:
        spec = self.data.get("spec")
        return spec if isinstance(spec, dict) else {}

    @property
    def is_karpenter(self) -> bool:
        return self.group in KARPENTER_GROUPS

    def get(self, path: Path, default: Any = None) -> Any:
        return self.doc.get(path, default)

    @property
    def pod_template(self) -> tuple[Path, Path] | None:
        """(metadata path, pod spec path) for pod-bearing workloads, else None."""
        return POD_TEMPLATES.get(self.kind) if isinstance(self.data, dict) else None

    def ref(self) -> dict:
        return {"api_version": self.api_version, "kind": self.kind, "name": self.name}

    def __str__(self) -> str:
        return f"{self.kind}/{self.name or '<unnamed>'}"


def as_resource(doc: Document) -> Resource | None:
    """A Resource when the document has string `apiVersion` and `kind`; anything else is not one."""
    data = doc.data
    if not isinstance(data, dict):
        return None
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    return Resource(doc, api_version.strip(), kind.strip())


@dataclass
class Model:
    """All resources of the run, in input order."""

    resources: list[Resource] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    # Objects that documentation shows as a live cluster returned them (`cluster_record`): they exist there, so
    # their names are known to references, but they are no objects of the run (no other verdict reads them).
    recorded: list[Resource] = field(default_factory=list)
    # What rules work out about the whole run once and several rules ask for (each under its own key).
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    # (len(resources) when built, resources by kind): rules ask for one kind thousands of times per run
    _by_kind: tuple | None = field(default=None, repr=False, compare=False)

    def add(self, docs: Iterable[Document]) -> None:
        for doc in docs:
            self.documents.append(doc)
            res = as_resource(doc)
            if res is not None:
                self.resources.append(res)

    def add_recorded(self, docs: Iterable[Document]) -> None:
        self.recorded.extend(res for res in map(as_resource, docs) if res is not None)

    def of_kind(self, *kinds: str, group: str | None = None) -> Iterator[Resource]:
        if len(kinds) == 1:
            index = self._by_kind
            if index is None or index[0] != len(self.resources):  # (built again when resources were added)
                by_kind: dict[str, list[Resource]] = {}
                for res in self.resources:
                    by_kind.setdefault(res.kind, []).append(res)
                index = self._by_kind = (len(self.resources), by_kind)
            found = index[1].get(kinds[0], ())
        else:
            found = (res for res in self.resources if res.kind in kinds)
        for res in found:
            if group is None or res.group == group:
                yield res

    def nodepools(self) -> Iterator[Resource]:
        """v1 and v1beta1 NodePools (the right group only)."""
        return self.of_kind("NodePool", group="karpenter.sh")

    def nodeclasses(self) -> Iterator[Resource]:
        return self.of_kind("EC2NodeClass", group="karpenter.k8s.aws")

    def workloads(self) -> Iterator[Resource]:
        for res in self.resources:
            if res.pod_template is not None and res.group in ("", "apps", "batch"):
                yield res


_SERVER_SET_METADATA = ("uid", "resourceVersion", "creationTimestamp")


def cluster_record(doc: Document) -> bool:
    """A documentation example that is an object as a live cluster returned it (`kubectl get -o yaml`: metadata
    that only the API server sets): it exists in that cluster, although no file of the run defines it."""
    meta = doc.data.get("metadata") if isinstance(doc.data, dict) else None
    return doc.documentation_example and isinstance(meta, dict) and any(k in meta for k in _SERVER_SET_METADATA)


# ---------------------------------------------------------------------------------------------- what rules read
# Predicates on (document, its resource or None) for `Rule.reads`: the documents a cross-file rule may look at.
# Each must be true for every document the rule's code can read (a superset is fine, a miss is a wrong verdict;
# tests/perf/test_run_reads.py compares pruned and full runs).

class Parts:
    """A `reads` predicate that also names the only parts of a matching resource its rule looks at
    (`paths(res)`, mapping keys from the root): the run stage keeps just those parts of such a document, unless
    another rule reads it whole. For rules that read a little of many documents (every workload's labels)."""

    def __init__(self, predicate: Callable[[Document, "Resource | None"], bool],
                 paths: Callable[[Resource], Iterable[Path]]):
        self.predicate, self.paths = predicate, paths
        self.__name__ = f"parts of {getattr(predicate, '__name__', predicate)}"

    def __call__(self, doc: Document, res: Resource | None) -> bool:
        return self.predicate(doc, res)


def karpenter_resources(doc: Document, res: Resource | None) -> bool:
    """Karpenter's own kinds, under any group (a wrong group is still read, to be reported)."""
    return res is not None and (res.is_karpenter or res.kind in KARPENTER_KINDS)


def _pod_annotations_with_prefix(res: Resource, prefix: str) -> bool:
    paths = [("metadata", "annotations")]
    if res.pod_template is not None:
        paths.append(res.pod_template[0] + ("annotations",))
    for path in paths:
        ann = res.get(path)
        if isinstance(ann, dict) and any(isinstance(k, str) and k.startswith(prefix) for k in ann):
            return True
    return False


def karpenter_annotated_pods(doc: Document, res: Resource | None) -> bool:
    """Workloads and Nodes with a `karpenter.sh/` annotation (do-not-disrupt and its removed predecessors)."""
    return res is not None and (res.pod_template is not None or res.kind == "Node") and \
        _pod_annotations_with_prefix(res, "karpenter.sh/")


def cluster_autoscaler_annotated_pods(doc: Document, res: Resource | None) -> bool:
    """Workloads with a `cluster-autoscaler.kubernetes.io/` annotation (Cluster Autoscaler's `safe-to-evict`)."""
    return res is not None and res.pod_template is not None and \
        _pod_annotations_with_prefix(res, "cluster-autoscaler.kubernetes.io/")


KYVERNO_POLICY_KINDS = ("ClusterPolicy", "Policy")
_KYVERNO_ANCHOR = re.compile(r"^[+=<X^]?\((.*)\)$")  # Kyverno's conditional anchors: `+(key)` adds if absent


def kyverno_annotation_keys(res: Resource, prefix: str):
    """(path, key) of each annotation a Kyverno policy's `patchStrategicMerge` mutations write whose key (anchor
    stripped) starts with `prefix`."""
    rules = res.get(("spec", "rules"))
    if res.group != "kyverno.io" or res.kind not in KYVERNO_POLICY_KINDS or not isinstance(rules, list):
        return
    for i, r in enumerate(rules):
        patch = r.get("mutate", {}).get("patchStrategicMerge") if isinstance(r, dict) and \
            isinstance(r.get("mutate"), dict) else None
        stack = [(("spec", "rules", i, "mutate", "patchStrategicMerge"), patch)]
        while stack:
            path, node = stack.pop()
            if not isinstance(node, dict):
                continue
            for k, v in node.items():
                name = _KYVERNO_ANCHOR.sub(r"\1", k) if isinstance(k, str) else k
                if name == "annotations" and isinstance(v, dict):
                    for key in v:
                        bare = _KYVERNO_ANCHOR.sub(r"\1", key) if isinstance(key, str) else key
                        if isinstance(bare, str) and bare.startswith(prefix):
                            yield path + (k, key), bare
                elif isinstance(v, dict):
                    stack.append((path + (k,), v))


def kyverno_karpenter_mutations(doc: Document, res: Resource | None) -> bool:
    """Kyverno policies whose mutations write a `karpenter.sh/` annotation."""
    return res is not None and any(True for _ in kyverno_annotation_keys(res, "karpenter.sh/"))


def pods_with_grace_period(doc: Document, res: Resource | None) -> bool:
    """Workloads whose pods set terminationGracePeriodSeconds."""
    if res is None or res.pod_template is None:
        return False
    spec = res.get(res.pod_template[1])
    return isinstance(spec, dict) and "terminationGracePeriodSeconds" in spec


def pods_with_tolerations(doc: Document, res: Resource | None) -> bool:
    if res is None or res.pod_template is None:
        return False
    spec = res.get(res.pod_template[1])
    return isinstance(spec, dict) and "tolerations" in spec


def of_kinds(*kinds: str):
    """Resources of these kinds (any group)."""
    wanted = frozenset(kinds)

    def reads(doc: Document, res: Resource | None) -> bool:
        return res is not None and res.kind in wanted

    reads.__name__ = f"of_kinds{tuple(sorted(wanted))}"
    return reads
