"""AL2023 nodeadm `NodeConfig` documents: decoding as nodeadm does, merging as nodeadm does, and what the
kubelet finally registers with.

Pure text in, results out: every position is a character offset into the text handed to `decode_nodeconfigs`
(plus its `base`), so callers can map it to the manifest (see `karplint.userdata.text`).

Sources (awslabs/amazon-eks-ami at 81fec2e8: nodeadm `api/v1alpha1/nodeconfig_types.go`,
`internal/api/merge.go`, `internal/api/bridge/decode.go`, `internal/kubelet/{config,environment}.go`):
* decoding is non-strict: unknown fields are dropped silently; type errors are fatal;
* `kubelet.flags` items are joined with spaces into the unquoted env-file line `NODEADM_KUBELET_ARGS=…` and re-split
  by systemd 252: a newline inside an item ends the line, and everything after it never reaches the kubelet;
* documents merge in order (later wins): `kubelet.config` key-wise, `kubelet.flags` appended, the rest overridden;
* kubelet precedence: config file < config drop-ins < command-line flags, so `--register-with-taints` replaces
  `registerWithTaints`.
"""

from __future__ import annotations

import base64
import binascii
import copy
import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from karplint.readers.document import Document
from karplint.readers.source import SourceFile
from karplint.userdata.kubelet import Taint, kubelet_flag_error, parse_kubelet_args, parse_taints, validate_taint
from karplint.userdata.systemd import split_exec_252

API_VERSION = "node.eks.aws/v1alpha1"
KIND = "NodeConfig"
MEDIA_TYPE = "application/node.eks.aws"

# --------------------------------------------------------------------------------------------- data tables

# The NodeConfig fields nodeadm knows (awslabs/amazon-eks-ami nodeadm/api/v1alpha1/nodeconfig_types.go@81fec2e8),
# with the JSON type they decode into. A nested dict is an object; "any"/"map" are not looked into.
NODECONFIG_FIELDS: dict[str, Any] = {
    "apiVersion": "str",
    "kind": "str",
    "metadata": "any",
    "spec": {
        "cluster": {
            "name": "str",
            "apiServerEndpoint": "str",
            "certificateAuthority": "base64",
            "cidr": "str",
            "enableOutpost": "bool",
            "id": "str",
        },
        "containerd": {"config": "str", "baseRuntimeSpec": "map"},
        "instance": {
            "localStorage": {"strategy": "str", "mountPath": "str", "disabledMounts": "list[str]"},
            "environment": "any",
            "network": "any",
        },
        "kubelet": {"config": "map", "flags": "list[str]", "maxPodsExpression": "str"},
        "featureGates": "map[bool]",
    },
}

# Keys people write that nodeadm silently drops, and what they probably meant (seen in the corpus, Karpenter's own
# golden input `clusterEndpoint`, and other tools' vocabularies).
NODECONFIG_FIELD_ALIASES: dict[str, str] = {
    "flag": "flags",
    "extraArgs": "flags",
    "extraFlags": "flags",
    "kubeletExtraArgs": "flags",
    "args": "flags",
    "clusterEndpoint": "apiServerEndpoint",
    "endpoint": "apiServerEndpoint",
    "apiServer": "apiServerEndpoint",
    "certificateAuthorityData": "certificateAuthority",
    "caData": "certificateAuthority",
    "ca": "certificateAuthority",
    "b64ClusterCA": "certificateAuthority",
    "serviceCidr": "cidr",
    "serviceCIDR": "cidr",
    "configuration": "config",
    "kubeletConfig": "config",
    "taints": "config.registerWithTaints",
}

# What Karpenter's generated NodeConfig (appended last, so it wins) always sets (`pkg/providers/amifamily/bootstrap/nodeadm.go`,
# `al2023_*_merged.golden` at v1.14.1): user values at these paths are replaced.
KARPENTER_NODECONFIG_OWNS: dict[tuple, str] = {
    ("spec", "cluster", "name"): "the cluster name",
    ("spec", "cluster", "apiServerEndpoint"): "the cluster endpoint",
    ("spec", "cluster", "certificateAuthority"): "the cluster CA bundle",
    ("spec", "cluster", "cidr"): "the cluster service CIDR",
    ("spec", "kubelet", "config", "maxPods"): "maxPods (spec.kubelet.maxPods or the instance type's pod density)",
    ("spec", "kubelet", "config", "clusterDNS"): "clusterDNS (spec.kubelet.clusterDNS or the kube-dns IP)",
    ("spec", "kubelet", "config", "registerWithTaints"): (
        "registerWithTaints (NodePool taints + startupTaints + karpenter.sh/unregistered:NoExecute)"
    ),
}

# A user `kubelet.maxPodsExpression` nodeadm never evaluates: it computes maxPods from the expression only when no
# kubelet.config.maxPods is configured (awslabs/amazon-eks-ami nodeadm `kubelet` daemon; EKS user guide, "max pods
# precedence"), and Karpenter's NodeConfig always sets one (`resolver.go` at v1.14.1: spec.kubelet.maxPods or the
# instance type's pods), whatever the merge order.
MAX_PODS_EXPRESSION = ("spec", "kubelet", "maxPodsExpression")

# The cluster's identity among them: Karpenter writes the values of the cluster it serves (its settings and what it
# discovers), so a user value for that cluster changes nothing, and karplint cannot know whether it names another.
CLUSTER_IDENTITY_PATHS: frozenset[tuple] = frozenset(p for p in KARPENTER_NODECONFIG_OWNS if p[:2] == ("spec", "cluster"))

# EC2NodeClass spec.kubelet fields Karpenter copies into its NodeConfig's kubelet.config under the same name.
NODECLASS_KUBELET_TO_CONFIG: tuple[str, ...] = (
    "clusterDNS", "maxPods", "podsPerCore", "systemReserved", "kubeReserved", "evictionHard", "evictionSoft",
    "evictionSoftGracePeriod", "evictionMaxPodGracePeriod", "imageGCHighThresholdPercent",
    "imageGCLowThresholdPercent", "cpuCFSQuota",
)

# kubelet flags in a user NodeConfig that override what Karpenter configures (flags beat config drop-ins).
FLAGS_OVERRIDING_KARPENTER: dict[str, str] = {
    "register-with-taints": "registerWithTaints (NodePool taints, startupTaints and karpenter.sh/unregistered)",
    "max-pods": "maxPods, which Karpenter also uses to schedule pods onto the node",
    "cluster-dns": "clusterDNS",
    "pods-per-core": "podsPerCore",
    "system-reserved": "systemReserved",
    "kube-reserved": "kubeReserved",
    "eviction-hard": "evictionHard",
    "eviction-soft": "evictionSoft",
}

UNREGISTERED_TAINT = ("karpenter.sh/unregistered", "", "NoExecute")


# --------------------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Issue:
    """Something nodeadm or the kubelet does with the text that the author probably did not intend.

    `kind` is a stable identifier rules dispatch on; offsets index the analysed string."""

    kind: str
    severity: str  # "error" | "warning" | "info"
    message: str
    start: int
    end: int


@dataclass
class FlagItem:
    """One `kubelet.flags` item. `effective` is what reaches the env-file line (cut at the first newline)."""

    index: int
    text: str
    start: int
    end: int
    effective: str
    lost: str  # text after the first newline ("" if none)


@dataclass
class NodeConfigDoc:
    data: Any
    base: int  # offset of the YAML text in the analysed string
    doc: Document | None  # positions relative to the YAML text
    issues: list[Issue] = field(default_factory=list)
    fatal: bool = False
    flags: list[FlagItem] = field(default_factory=list)

    def span(self, path: tuple, *, key: bool = False) -> tuple[int, int]:
        """Offsets (in the analysed string) of the node at `path` (or its key)."""
        if self.doc is None:
            return self.base, self.base
        sp = self.doc.key_span(path) if key else self.doc.span(path)
        return self.base + sp.offset, self.base + sp.end_offset

    def exists(self, path: tuple) -> bool:
        return self.doc is not None and self.doc.exact(path) is not None

    def get(self, path: tuple, default: Any = None) -> Any:
        cur = self.data
        for p in path:
            if not isinstance(cur, dict) or p not in cur:
                return default
            cur = cur[p]
        return cur

    @property
    def flag_texts(self) -> list[str]:
        return [f.text for f in self.flags]


# --------------------------------------------------------------------------------------------- decoding


def looks_like_nodeconfig(text: str) -> bool:
    return bool(re.search(r"^\s*apiVersion:\s*['\"]?node\.eks\.aws/", text, re.M)) and bool(
        re.search(r"^\s*kind:\s*['\"]?NodeConfig\b", text, re.M)
    )


def decode_nodeconfigs(text: str, base: int = 0) -> list[NodeConfigDoc]:
    """Every YAML document of `text` decoded as a NodeConfig, with nodeadm's tolerance and its fatal errors."""
    from karplint.readers.loader import load  # the project's position-keeping YAML loader

    src = SourceFile(path="<NodeConfig>", text=text)
    try:
        docs, problems = load(src)
    except Exception as exc:  # the loader is tolerant; never let a userData part take the run down
        return [NodeConfigDoc(None, base, None, [Issue("yaml", "error", f"NodeConfig is not YAML\nnote: {exc}",
                                                        base, base + len(text))], fatal=True)]
    out: list[NodeConfigDoc] = []
    for doc in docs:
        ncd = NodeConfigDoc(doc.data, base, doc)
        _check_document(ncd)
        out.append(ncd)
    for prob in problems:
        if prob.code not in ("KPL001", "KPL004"):  # duplicate keys: nodeadm keeps the last, checked elsewhere
            continue
        off = base + src.offset_of(prob.span.line, prob.span.column)
        if prob.code == "KPL004":  # over karplint's budget: not analysed, and never reported as fine
            issue = Issue("yaml", "error", f"NodeConfig not analysed: {prob.message}", off, off + 1)
        else:
            msg = prob.message.replace("invalid YAML: ", "", 1)
            issue = Issue("yaml", "error", f"nodeadm cannot decode the NodeConfig: invalid YAML\nnote: {msg}", off,
                          off + 1)
        if out:
            out[-1].issues.append(issue)
            out[-1].fatal = True
        else:
            out.append(NodeConfigDoc(None, base, None, [issue], fatal=True))
    return out


def _check_document(ncd: NodeConfigDoc) -> None:
    data = ncd.data
    if not isinstance(data, dict):
        s, e = ncd.span(())
        ncd.issues.append(Issue("not-object", "error", "nodeadm cannot decode the NodeConfig: the document is not "
                                "a mapping", s, e))
        ncd.fatal = True
        return
    api, kind = data.get("apiVersion"), data.get("kind")
    if api != API_VERSION or kind != KIND:
        path = ("apiVersion",) if api != API_VERSION else ("kind",)
        s, e = ncd.span(path) if ncd.exists(path) else ncd.span(())
        what = f"apiVersion {api!r}" if api != API_VERSION else f"kind {kind!r}"
        if api is None or kind is None:
            what = "missing apiVersion/kind"
        ncd.issues.append(Issue("type-meta", "error",
                                f"nodeadm cannot decode this part ({what})\n"
                                f"help: a NodeConfig needs apiVersion {API_VERSION} and kind {KIND}", s, e))
        ncd.fatal = True
        if kind != KIND:
            return  # not a NodeConfig at all: its fields mean nothing to nodeadm
    _check_fields(ncd, data, NODECONFIG_FIELDS, ())
    _check_flags(ncd)
    _check_register_with_taints(ncd)


_GO_TYPE = {"str": "string", "bool": "bool", "base64": "[]byte", "list[str]": "[]string", "map": "object",
            "map[bool]": "map[string]bool"}


def _json_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null"


def _type_error(ncd: NodeConfigDoc, path: tuple, v: Any, want: str, extra: str = "") -> None:
    s, e = ncd.span(path)
    name = ".".join(str(p) for p in path)
    msg = (f"{name} is a {_json_kind(v)} but must be {_GO_TYPE.get(want, want)}: nodeadm cannot decode the NodeConfig"
           f"{extra}\nnote: json: cannot unmarshal {_json_kind(v)} into {name}; the node never joins")
    ncd.issues.append(Issue("type", "error", msg, s, e))
    ncd.fatal = True


def _dynamic(v: Any) -> bool:
    return isinstance(v, str) and ("${" in v or "{{" in v or "$(" in v)


def _check_fields(ncd: NodeConfigDoc, data: dict, schema: dict, path: tuple) -> None:
    for key, value in data.items():
        sub = path + (key,)
        if not isinstance(key, str) or key not in schema:
            _unknown_field(ncd, sub, key, schema)
            continue
        want = schema[key]
        if value is None:
            continue  # JSON null leaves the field empty
        if isinstance(want, dict):
            if not isinstance(value, dict):
                _type_error(ncd, sub, value, "object")
            else:
                _check_fields(ncd, value, want, sub)
            continue
        if want == "any":
            continue
        if want == "str" and not isinstance(value, str):
            if not isinstance(value, (dict, list)) and key in ("apiVersion", "kind"):
                pass
            _type_error(ncd, sub, value, want)
        elif want == "bool" and not isinstance(value, bool):
            _type_error(ncd, sub, value, want)
        elif want == "base64":
            if not isinstance(value, str):
                _type_error(ncd, sub, value, want)
            elif not _dynamic(value) and value.strip() and not _is_base64(value):
                s, e = ncd.span(sub)
                ncd.issues.append(Issue("type", "error", f"{'.'.join(sub)} is not valid base64: nodeadm cannot "
                                        "decode the NodeConfig\nnote: illegal base64 data", s, e))
                ncd.fatal = True
        elif want == "list[str]":
            if key == "flags" and isinstance(value, str):
                s, e = ncd.span(sub)
                ncd.issues.append(Issue(
                    "flags-not-list", "error",
                    "kubelet.flags is a string, not a list: nodeadm fails and the node never joins\n"
                    "help: write each flag as a list item (flags: [\"--flag=value\"])\n"
                    "note: json: cannot unmarshal string into Go struct field KubeletOptions.spec.kubelet.flags of "
                    "type []string", s, e))
                ncd.fatal = True
            elif not isinstance(value, list):
                _type_error(ncd, sub, value, want)
            else:
                for i, item in enumerate(value):
                    if not isinstance(item, str):
                        _type_error(ncd, sub + (i,), item, "str")
        elif want in ("map", "map[bool]"):
            if not isinstance(value, dict):
                _type_error(ncd, sub, value, want)
            elif want == "map[bool]":
                for k, v in value.items():
                    if v is not None and not isinstance(v, bool):
                        _type_error(ncd, sub + (k,), v, "bool")


def _unknown_field(ncd: NodeConfigDoc, path: tuple, key: Any, schema: dict) -> None:
    s, e = ncd.span(path, key=True)
    where = ".".join(str(p) for p in path[:-1]) or "the document root"
    suggestion = NODECONFIG_FIELD_ALIASES.get(str(key))
    if suggestion is None:
        close = difflib.get_close_matches(str(key), list(schema), n=1, cutoff=0.75)
        suggestion = close[0] if close else None
    hint = f"\nhelp: did you mean `{suggestion}`?" if suggestion else ""
    ncd.issues.append(Issue("unknown-field", "warning",
                            f"nodeadm silently ignores the unknown field `{key}` in {where}{hint}", s, e))


def _is_base64(value: str) -> bool:
    try:
        base64.b64decode("".join(value.split()), validate=True)
        return True
    except (binascii.Error, ValueError):
        return False


def _check_flags(ncd: NodeConfigDoc) -> None:
    flags = ncd.get(("spec", "kubelet", "flags"))
    if not isinstance(flags, list):
        return
    for i, item in enumerate(flags):
        if not isinstance(item, str):
            continue
        path = ("spec", "kubelet", "flags", i)
        s, e = ncd.span(path)
        cut = item.find("\n")
        effective, lost = (item, "") if cut < 0 else (item[:cut], item[cut + 1:])
        ncd.flags.append(FlagItem(i, item, s, e, effective, lost))
        if cut >= 0:
            later = len(flags) - i - 1
            what = repr(lost.strip()) if lost.strip() else "the rest of the line"
            tail = f", the {later} later flag item(s)" if later else ""
            ncd.issues.append(Issue(
                "flag-newline", "error",
                f"kubelet.flags item {i} contains a newline: what follows never reaches the kubelet\n"
                "help: put each flag in its own single-line item\n"
                "note: nodeadm writes the flags on one unquoted NODEADM_KUBELET_ARGS= line, so the newline ends it "
                f"and {what}{tail} and every flag appended after it (Karpenter's --node-labels) are lost",
                s, e))


def _check_register_with_taints(ncd: NodeConfigDoc) -> None:
    path = ("spec", "kubelet", "config", "registerWithTaints")
    rwt = ncd.get(path)
    if rwt is None or not ncd.exists(path):
        return
    s, e = ncd.span(path)
    if not isinstance(rwt, list):
        ncd.issues.append(Issue("taints-type", "error",
                                "kubelet.config.registerWithTaints must be a list of {key, value, effect} objects\n"
                                "note: the kubelet cannot load its configuration and never starts", s, e))
        ncd.fatal = True
        return
    seen: dict[tuple, int] = {}
    for i, item in enumerate(rwt):
        ipath = path + (i,)
        si, ei = ncd.span(ipath)
        if not isinstance(item, dict):
            ncd.issues.append(Issue("taints-type", "error",
                                    f"registerWithTaints[{i}] must be an object {{key, value, effect}}\n"
                                    "note: the kubelet cannot load its configuration and never starts", si, ei))
            ncd.fatal = True
            continue
        key, value, effect = item.get("key"), item.get("value", ""), item.get("effect", "")
        for fname, fval in (("key", key), ("value", value), ("effect", effect)):
            if fval is not None and not isinstance(fval, str):
                ncd.issues.append(Issue("taints-type", "error",
                                        f"registerWithTaints[{i}].{fname} must be a string", *ncd.span(ipath + (fname,))))
                ncd.fatal = True
        if not all(isinstance(x, str) or x is None for x in (key, value, effect)):
            continue
        if _dynamic(key) or _dynamic(value) or _dynamic(effect):
            continue
        problems = validate_taint(key or "", value or "", effect or "")
        if problems:
            ncd.issues.append(Issue("taint-invalid", "error", f"registerWithTaints[{i}] is not a valid taint: the "
                                    "kubelet never starts\n"
                                    f"note: the kubelet says: {'; '.join(problems)}", si, ei))
        elif not effect:
            ncd.issues.append(Issue("taint-invalid", "error", f"registerWithTaints[{i}] has no effect: the API "
                                    "server rejects the Node\nhelp: add an effect (NoSchedule, PreferNoSchedule or "
                                    "NoExecute)\nnote: the kubelet accepts it, but the Node fails with "
                                    "spec.taints[].effect: Required value", si, ei))
        k = (key, effect)
        if k in seen and effect:
            ncd.issues.append(Issue("taint-invalid", "error",
                                    f"registerWithTaints[{i}] repeats key {key!r} and effect {effect}\n"
                                    f"note: item {seen[k]} has them too; the kubelet rejects duplicated taints", si, ei))
        seen.setdefault(k, i)


# --------------------------------------------------------------------------------------------- flags


def split_env_words(line: str) -> list[str]:
    """Words of `$NODEADM_KUBELET_ARGS` in `ExecStart` under systemd 252 (quotes removed, unbalanced tolerated)."""
    return [w.value for w in split_exec_252(line).words]


@dataclass(frozen=True)
class UserFlag:
    """A kubelet flag as the kubelet sees it, with the `kubelet.flags` item (and document) it came from."""

    name: str  # normalised (no dashes, `_` -> `-`)
    value: str | None
    item: int
    doc: int


def kubelet_argv(docs: Iterable[NodeConfigDoc]) -> list[tuple[str, int, int]]:
    """The argv words nodeadm's flags become, in order, as (word, item index, document index): items are joined
    on one env-file line (cut at the first newline anywhere) and re-split by systemd 252."""
    words: list[tuple[str, int, int]] = []
    for di, d in enumerate(docs):
        for f in d.flags:
            words.extend((w, f.index, di) for w in split_env_words(f.effective))
            if "\n" in f.text:
                return words
    return words


def user_flags(docs: Iterable[NodeConfigDoc]) -> list[UserFlag]:
    argv = kubelet_argv(docs)
    parsed = parse_kubelet_args([w for w, _, _ in argv])
    return [UserFlag(u.name, u.value, argv[u.index][1], argv[u.index][2]) for u in parsed.uses]


# --------------------------------------------------------------------------------------------- merging


def merge_nodeconfigs(configs: Iterable[Any]) -> dict:
    """nodeadm `MergeNodeConfigs` on plain data, document order, later wins: `kubelet.config` merged key-wise
    (nested objects merged, lists replaced), `kubelet.flags` appended, every other field overridden when set."""
    merged: dict = {}
    for cfg in configs:
        if not isinstance(cfg, dict):
            continue
        spec = cfg.get("spec")
        if not isinstance(spec, dict):
            continue
        mspec = merged.setdefault("spec", {})
        for section, value in spec.items():
            if section == "kubelet" and isinstance(value, dict):
                mk = mspec.setdefault("kubelet", {})
                for k, v in value.items():
                    if k == "config" and isinstance(v, dict):
                        mk["config"] = _merge_objects(mk.get("config") or {}, v)
                    elif k == "flags" and isinstance(v, list):
                        mk["flags"] = list(mk.get("flags") or []) + list(v)
                    elif _set(v):
                        mk[k] = copy.deepcopy(v)
            elif isinstance(value, dict) and isinstance(mspec.get(section), dict):
                mspec[section] = _override(mspec[section], value)
            elif _set(value):
                mspec[section] = copy.deepcopy(value)
    return merged


def _set(v: Any) -> bool:
    return v not in (None, "", [], {})


def _merge_objects(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge_objects(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _override(a: dict, b: dict) -> dict:
    """mergo.Merge(WithOverride): non-empty fields of b replace a's, recursively for structs."""
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _override(out[k], v)
        elif _set(v):
            out[k] = copy.deepcopy(v)
    return out


# --------------------------------------------------------------------------------------------- what Karpenter replaces


@dataclass(frozen=True)
class Overridden:
    """A user NodeConfig value Karpenter's generated NodeConfig (merged last) replaces."""

    doc: int  # index in the documents given
    path: tuple
    what: str  # what Karpenter sets there instead


def overridden_by_karpenter(docs: list[NodeConfigDoc], nodeclass_kubelet: dict | None = None) -> list[Overridden]:
    """User values lost to Karpenter's NodeConfig: `KARPENTER_NODECONFIG_OWNS` plus the `spec.kubelet` fields of the
    EC2NodeClass that Karpenter copies into `kubelet.config`."""
    owned = dict(KARPENTER_NODECONFIG_OWNS)
    for name in NODECLASS_KUBELET_TO_CONFIG:
        if isinstance(nodeclass_kubelet, dict) and name in nodeclass_kubelet:
            owned.setdefault(("spec", "kubelet", "config", name), f"{name} (from the EC2NodeClass spec.kubelet)")
    out = []
    for i, doc in enumerate(docs):
        if doc.fatal or not isinstance(doc.data, dict):
            continue
        for path, what in owned.items():
            if doc.exists(path) and doc.get(path) not in (None, "", [], {}):
                out.append(Overridden(i, path, what))
    return out


# --------------------------------------------------------------------------------------------- registration


@dataclass
class Registration:
    """What the kubelet registers with, and why."""

    taints: list[Taint] | None  # None: unknown (a dynamic value or a fatal error)
    source: str  # "flags", "config", "none", "error"
    error: str | None = None
    flag_item: int | None = None  # the user flags item that decided it (source == "flags")
    flag_doc: int | None = None


def registration(user_docs: list[NodeConfigDoc], karpenter_config: dict | None = None) -> Registration:
    """Taints registered by a node whose NodeConfigs are `user_docs` (document order) followed by Karpenter's."""
    if any(d.fatal for d in user_docs):
        return Registration(None, "error", "nodeadm cannot decode a NodeConfig")
    configs = [d.data for d in user_docs] + ([karpenter_config] if karpenter_config else [])
    rwt_flag: UserFlag | None = None
    for use in user_flags(user_docs):
        if use.name == "register-with-taints":
            rwt_flag = use  # pflag: the last one wins
    if rwt_flag is not None:
        if rwt_flag.value is None:
            return Registration(None, "error", "flag needs an argument: --register-with-taints", rwt_flag.item,
                                rwt_flag.doc)
        if "$" in rwt_flag.value:
            return Registration(None, "flags", None, rwt_flag.item, rwt_flag.doc)
        taints, errors = parse_taints(rwt_flag.value)
        fatal = [e for e in errors if e.fatal]
        if fatal:
            return Registration(None, "error", kubelet_flag_error("--register-with-taints", rwt_flag.value,
                                                                  fatal[0].message), rwt_flag.item, rwt_flag.doc)
        return Registration(list(taints), "flags", None, rwt_flag.item, rwt_flag.doc)
    merged = merge_nodeconfigs(configs)
    rwt = (((merged.get("spec") or {}).get("kubelet") or {}).get("config") or {}).get("registerWithTaints")
    if rwt is None:
        return Registration([], "none")
    if not isinstance(rwt, list):
        return Registration(None, "error", "registerWithTaints is not a list")
    out = []
    for t in rwt:
        if isinstance(t, dict):
            if any(_dynamic(t.get(k)) for k in ("key", "value", "effect")):
                return Registration(None, "config")
            out.append(Taint(str(t.get("key") or ""), str(t.get("value") or ""), str(t.get("effect") or "")))
    return Registration(out, "config")


def has_unregistered_taint(taints: Iterable[Taint]) -> bool:
    return any(t.key == UNREGISTERED_TAINT[0] and t.effect == UNREGISTERED_TAINT[2] for t in taints)


# --------------------------------------------------------------------------------------------- Karpenter's part


@dataclass
class KarpenterNodeConfigOptions:
    """The inputs of Karpenter's generated NodeConfig; unknown cluster values stay placeholders."""

    cluster_name: str = "${CLUSTER_NAME}"
    api_server_endpoint: str = "${CLUSTER_ENDPOINT}"
    certificate_authority: str = "${CLUSTER_CA_BUNDLE}"
    cidr: str = "${CLUSTER_SERVICE_CIDR}"
    kubelet_config: dict = field(default_factory=dict)  # already includes clusterDNS and maxPods
    taints: list[Taint] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)


def karpenter_nodeconfig(opts: KarpenterNodeConfigOptions) -> dict:
    """Karpenter's NodeConfig as data (`pkg/providers/amifamily/bootstrap/nodeadm.go`)."""
    config = dict(opts.kubelet_config)
    if opts.taints:
        config["registerWithTaints"] = [
            {"effect": t.effect, "key": t.key, **({"value": t.value} if t.value else {})} for t in opts.taints
        ]
    kubelet: dict = {"config": config}
    if opts.labels:
        kubelet["flags"] = [node_labels_flag(opts.labels)]
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {},
        "spec": {
            "cluster": {
                "apiServerEndpoint": opts.api_server_endpoint,
                "certificateAuthority": opts.certificate_authority,
                "cidr": opts.cidr,
                "name": opts.cluster_name,
            },
            "containerd": {},
            "instance": {"localStorage": {}},
            "kubelet": kubelet,
        },
    }


def node_labels_flag(labels: dict[str, str]) -> str:
    """`--node-labels="k=v,…"` with sorted keys, as Karpenter's `nodeLabelArg` (Go %q quoting)."""
    joined = ",".join(f"{k}={labels[k]}" for k in sorted(labels))
    return f"--node-labels={go_quote(joined)}"


def go_quote(s: str) -> str:
    out = ['"']
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def karpenter_nodeconfig_yaml(cfg: dict) -> str:
    """The generated part's text: sigs.k8s.io/yaml style (sorted keys, 2-space indent, `- ` at the parent's indent)."""
    return "# Karpenter Generated NodeConfig\n" + dump_go_yaml(cfg)


def dump_go_yaml(data: Any, indent: int = 0) -> str:
    lines: list[str] = []
    _emit(data, indent, lines)
    return "\n".join(lines) + "\n"


# go-yaml v2 (behind sigs.k8s.io/yaml) quotes a string when it would resolve to another type or starts with an
# indicator; everything else is written plain.
_YAML11_NON_STRING = re.compile(
    r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~"
    r"|[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?0[xX][0-9a-fA-F_]+|[-+]?0[bB][01_]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_INDICATOR_START = set("?:,[]{}#&*!|>'\"%@`")


def _needs_quotes(s: str) -> bool:
    if not s or s != s.strip() or "\n" in s or "\t" in s:
        return True
    if _YAML11_NON_STRING.match(s):
        return True
    if s[0] in _INDICATOR_START or (s[0] == "-" and (len(s) == 1 or s[1] == " ")):
        return True
    return ": " in s or " #" in s or s.endswith(":")


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    s = str(v)
    if not _needs_quotes(s):
        return s
    if "\n" not in s and "'" not in s:
        return f"'{s}'"
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _key(k: Any) -> str:
    return _scalar(k)


def _emit(data: Any, indent: int, lines: list[str]) -> None:
    pad = " " * indent
    if isinstance(data, dict):
        if not data:
            lines.append(pad + "{}")
            return
        for k in sorted(data, key=str):
            v = data[k]
            if isinstance(v, dict) and v:
                lines.append(f"{pad}{_key(k)}:")
                _emit(v, indent + 2, lines)
            elif isinstance(v, list) and v:
                lines.append(f"{pad}{_key(k)}:")
                _emit(v, indent, lines)
            elif isinstance(v, dict):
                lines.append(f"{pad}{_key(k)}: {{}}")
            elif isinstance(v, list):
                lines.append(f"{pad}{_key(k)}: []")
            else:
                lines.append(f"{pad}{_key(k)}: {_scalar(v)}")
    elif isinstance(data, list):
        for item in data:
            if isinstance(item, dict) and item:
                sub: list[str] = []
                _emit(item, indent + 2, sub)
                sub[0] = pad + "- " + sub[0][indent + 2:]
                lines.extend(sub)
            elif isinstance(item, list) and item:
                sub = []
                _emit(item, indent + 2, sub)
                sub[0] = pad + "- " + sub[0][indent + 2:]
                lines.extend(sub)
            elif isinstance(item, (dict, list)):
                lines.append(f"{pad}- {'{}' if isinstance(item, dict) else '[]'}")
            else:
                lines.append(f"{pad}- {_scalar(item)}")
    else:
        lines.append(pad + _scalar(data))


# --------------------------------------------------------------------------------------------- fix helper


def unregistered_taint_insertion(text: str, ncd: NodeConfigDoc) -> tuple[int, str] | None:
    """Where and what to insert (offset in the analysed string, text) to add `karpenter.sh/unregistered:NoExecute`
    to an existing block-style `kubelet.config.registerWithTaints` list, keeping its indentation.
    None when there is no such list or it is a flow sequence (left to the author)."""
    path = ("spec", "kubelet", "config", "registerWithTaints")
    rwt = ncd.get(path)
    if not isinstance(rwt, list) or not rwt or ncd.doc is None:
        return None
    info = ncd.doc.exact(path)
    if info is None or info.style == "[":
        return None
    if has_unregistered_taint(Taint(str(t.get("key")), "", str(t.get("effect"))) for t in rwt if isinstance(t, dict)):
        return None
    first = ncd.doc.exact(path + (0,))
    if first is None:
        return None
    # The "- " of the first item sits before the item's node; find the column of the dash on that line.
    local = first.span.offset
    line_start = text.rfind("\n", 0, ncd.base + local) + 1
    dash = text.find("-", line_start, ncd.base + local)
    if dash < 0:
        return None
    item_indent = text[line_start:dash]
    if item_indent.strip():
        return None
    inner = " " * (ncd.base + local - dash)
    insertion = f"{item_indent}- key: karpenter.sh/unregistered\n{item_indent}{inner}effect: NoExecute\n"
    return line_start, insertion
