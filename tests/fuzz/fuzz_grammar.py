"""Grammars for the fuzz targets of tests/fuzz: Karpenter objects, workloads, budgets and userData built from
their real shapes, with hostile leaves (numbers past Python's 4,300-digit limit, digits that are not ASCII,
control and bidirectional characters, terminal escape sequences, empty and null values, long strings, deep
nesting), so that generated inputs get past the readers into the model, the rules and the simulations."""

from __future__ import annotations

import io
import json
import os
import time
from contextlib import contextmanager

import yaml
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

# Every example must finish within this bound (seconds): the generated inputs are small, so this is generous.
EXAMPLE_BOUND = 5.0

# Shrinking is off unless KARPLINT_FUZZ_SHRINK is set: on a failure CI reports the generated example at once
# (minutes of shrinking otherwise); set it locally for a minimal example.
SHRINK = os.environ.get("KARPLINT_FUZZ_SHRINK", "") not in ("", "0")
# A longer local search: KARPLINT_FUZZ_SCALE=20 runs twenty times the examples, from a random seed each run.
SCALE = max(1, int(os.environ.get("KARPLINT_FUZZ_SCALE", "1") or 1))


# The fuzz targets' settings: reproducible (derandomize: the same examples on every run, no example database),
# bounded (max_examples), and without hypothesis' own deadline, which fails on a first slow example under a loaded
# CI machine; `bounded` asserts EXAMPLE_BOUND instead.
def fuzz_settings(max_examples: int) -> settings:
    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if SHRINK else [])
    return settings(max_examples=max_examples * SCALE, deadline=None, derandomize=SCALE == 1, database=None,
                    phases=phases,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much, HealthCheck.large_base_example])


def _cpu(children: bool) -> float:
    if not children:
        return time.process_time()
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def bounded(what: str = "example", bound: float = EXAMPLE_BOUND, *, children: bool = False):
    """Asserts that the block ran within `bound` seconds of CPU time: this process', or with `children` that of the
    processes it ran (a machine shared with other jobs slows the wall clock, not the work done)."""
    started = _cpu(children)
    yield
    spent = _cpu(children) - started
    assert spent < bound, f"{what} took {spent:.1f} s of CPU (bound: {bound} s)"


# Hostile leaves built, not listed (their repr would be thousands of digits): (prefix, count of 9s, suffix).
BIG_LEAVES = {
    "huge-number": ("", 4400, ""),  # any number of more than 4,300 digits: Python's int() refuses it
    "huge-number-tag": ("1.", 4400, ".0"),  # a version / image tag with a part of 4,400 digits
    "superscript-cron": ("² * * * *", 0, ""),  # a cron field `²`: str.isdigit() is true, int() fails
    "superscript-digit": ("²", 0, ""),  # anywhere else a number is read: budget nodes
    "long-duration": ("", 400, "h"),  # a 400-digit duration: past Go's range
}


def _known(*names: str) -> st.SearchStrategy:
    """The BIG_LEAVES `names`."""
    return st.sampled_from(names).map(lambda n: BIG_LEAVES[n][0] + "9" * BIG_LEAVES[n][1] + BIG_LEAVES[n][2])


ESCAPES = [
    "\x1b]52;c;aGVsbG8=\x07",  # OSC 52: write the clipboard
    "\x1b[2J\x1b[H",  # clear the screen
    "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",  # hyperlink
    "::error::pwned",  # a GitHub Actions workflow command at the start of a line
    "a\u202eb",  # bidirectional override
    "\x00", "\x7f", "\x9b31m", "\u2028", "\ud800",
]
ODD_TEXT = [
    "", " ", "\t", "\n", "\r\n", "-", "*", "~", "null", "true", "yes", "0", "-1", "01", "0x1F", "1e400", "-1e400",
    "1.5", "NaN", ".inf", "٣", "１", "Ⅻ", "ß", "é", "😀", "${X}", "$(id)", "`id`", "{{ .Values.x }}",
    "%", "100%", "101%", "-5%", "50.5%", "9" * 40, "x/y", "a=b:NoSchedule", "'", '"', "\\", "{", "[",
    "#", "&a", "*a", "!!binary", "<<", "key: value",
]

def _repeat(unit_count) -> str:
    return unit_count[0] * unit_count[1]


# (long strings built, not listed: a strategy's repr shows the elements it samples from)
long_text = st.tuples(st.sampled_from(["a", "9", "é", "\\", "{", "- "]), st.sampled_from([300, 3000])).map(_repeat)
hostile_text = (st.sampled_from(ODD_TEXT + ESCAPES) | long_text | st.text(max_size=12)
                | _known("huge-number", "superscript-digit"))
hostile_int = st.sampled_from([0, -1, 1, 2 ** 31, 2 ** 63, 10 ** 300, -(10 ** 300)]) | st.integers(-5, 200)
hostile_scalar = (hostile_text | hostile_int | st.none() | st.booleans()
                  | st.floats(allow_nan=True, allow_infinity=True))
# Any shape where a value was expected: a rule reading a field must cope with a list, a map or a null.
hostile_value = st.recursive(hostile_scalar, lambda inner: st.lists(inner, max_size=3)
                             | st.dictionaries(hostile_text, inner, max_size=3), max_leaves=8)


def either(good, bad=hostile_value):
    """Mostly the well-formed value, sometimes a hostile one. (Not `one_of(good, good, good, bad)`: a strategy's
    repr repeats its parts, and nested that way it grows exponentially, to hundreds of megabytes.)"""
    return st.integers(0, 3).flatmap(lambda i: good if i else bad)


def maybe(d: dict) -> st.SearchStrategy:
    """A mapping strategy of which every key is optional."""
    return st.fixed_dictionaries({}, optional=d)


# ---------------------------------------------------------------------------------------------- small grammars

CRON_FIELDS = ["*", "*/5", "0", "1-5", "9", "0,30", "MON-FRI", "SUN", "JAN", "60", "-1", "5-1", "*/0", "1-5/2", "?",
               "L", "", "1,", "99999999999999999999"]
cron = st.one_of(
    st.lists(st.sampled_from(CRON_FIELDS), min_size=5, max_size=5).map(" ".join),
    st.lists(st.sampled_from(CRON_FIELDS), min_size=1, max_size=7).map(" ".join),
    st.sampled_from(["@daily", "@weekly", "@monthly", "@yearly", "@annually", "@hourly", "@midnight", "@reboot",
                     "@every 5m", "@", "0 9 * * 1-5", "0 0 29 2 *", "0 0 31 4 *", "* * * * *"]),
    _known("superscript-cron"),
    hostile_text)

duration = st.one_of(
    st.builds(lambda n, u: f"{n}{u}", st.integers(0, 10 ** 6), st.sampled_from(["ns", "us", "µs", "ms", "s", "m",
                                                                                   "h", "d", ""])),
    st.sampled_from(["Never", "never", "1h30m", "1.5h", "-1h", "0s", "h", ".h", "1h-1m", "+3m", "720h", "2562047h",
                     "9223372036854775807ns", "1e3s"]),
    _known("long-duration"),
    hostile_text)

quantity = st.one_of(
    st.builds(lambda n, u: f"{n}{u}", st.integers(0, 10 ** 6), st.sampled_from(
        ["", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E2", "u", "n"])),
    st.sampled_from(["0.5", ".5", "1e-3", "1E400", "-1", "+1", "1.", "NaN", "Inf", "100Mi ", " 1Gi"]),
    hostile_int, hostile_text)

label_key = st.sampled_from([
    "kubernetes.io/arch", "kubernetes.io/os", "karpenter.sh/capacity-type", "karpenter.sh/nodepool",
    "node.kubernetes.io/instance-type", "topology.kubernetes.io/zone", "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-generation", "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-memory", "karpenter.k8s.aws/instance-size", "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-hypervisor", "team", "example.com/a", "kubernetes.io/hostname",
    "node-role.kubernetes.io/worker"]) | hostile_text
label_value = st.sampled_from([
    "amd64", "arm64", "linux", "windows", "spot", "on-demand", "reserved", "m5.large", "c6g.xlarge", "m5", "c", "m",
    "5", "4", "8192", "us-east-1a", "nitro", "2", "3", "a"]) | hostile_text

requirement = either(maybe({
    "key": either(label_key),
    "operator": either(st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "in"])),
    "values": either(st.lists(either(label_value), max_size=6)),
    "minValues": either(st.integers(-1, 50)),
}))

taint = either(maybe({
    "key": either(label_key), "value": either(label_value),
    "effect": either(st.sampled_from(["NoSchedule", "NoExecute", "PreferNoSchedule", "noschedule", ""])),
}))

labels = st.dictionaries(label_key, either(label_value), max_size=4)


# ---------------------------------------------------------------------------------------------- userData

SHELL_LINES = [
    "#!/bin/bash", "set -euxo pipefail", "echo hello", "systemctl restart kubelet", "nodeadm init",
    "/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=a=b:NoSchedule "
    "--node-labels=team=x --max-pods=110'",
    "/etc/eks/bootstrap.sh \"$CLUSTER\" --use-max-pods false --kubelet-extra-args \"--max-pods=$((10*3))\"",
    "/etc/eks/bootstrap.sh c --b64-cluster-ca x --apiserver-endpoint y --dns-cluster-ip 10.0.0.10",
    "export KUBELET_EXTRA_ARGS=--register-with-taints=x=y:NoExecute",
    "cat <<'EOF' > /etc/kubernetes/kubelet/config.json.d/10.conf\n{\"maxPods\": 42}\nEOF",
    "cat <<EOF >/etc/systemd/system/kubelet.service.d/20.conf\n[Service]\nEnvironment='KUBELET_EXTRA_ARGS="
    "--node-labels=a=b'\nEOF",
    "jq '.maxPods=5' /etc/kubernetes/kubelet/kubelet-config.json > /tmp/k && mv /tmp/k "
    "/etc/kubernetes/kubelet/kubelet-config.json",
    "if [ -f x ]; then echo 'unclosed", "cat <<EOF", "$(", "${a:-${b", "case $x in", "f() { f; }; f", "\\",
    "echo \"$((2**64))\"", "eval \"$(cat /x)\"",
]
shell_script = st.lists(st.sampled_from(SHELL_LINES) | hostile_text, max_size=8).map("\n".join)

TOML_LINES = [
    "[settings.kubernetes]", "max-pods = 110", "max-pods = \"110\"", "max-pods = -1", "cluster-name = 'c'",
    "[settings.kubernetes.node-labels]", "team = \"x\"", "\"example.com/a\" = \"b\"",
    "[settings.kubernetes.node-taints]", "dedicated = [\"gpu:NoSchedule\"]", "x = \"y:NoExecute\"",
    "a.b.c.d.e = 1", "[settings.kubernetes.eviction-hard]", "\"memory.available\" = \"5%\"",
    "[[settings.x]]", "settings.kubernetes.node-labels = {a = \"b\"}", "[settings", "= 1", "x = [1, \"a\"]",
    "x = 1979-05-27T07:32:00Z", "x = 1_000", "x = inf", "x = 0x1F", "[settings.kubernetes]",
]
toml_settings = st.lists(st.sampled_from(TOML_LINES) | hostile_text, max_size=8).map("\n".join)

NODECONFIG = st.builds(
    lambda config, flags, extra: "\n".join([
        "apiVersion: node.eks.aws/v1alpha1", "kind: NodeConfig", "spec:", "  kubelet:",
        "    config: " + json.dumps(config), "    flags: " + json.dumps(flags)] + extra),
    maybe({"maxPods": either(hostile_int), "registerWithTaints": either(st.lists(taint, max_size=2)),
           "clusterDNS": either(st.lists(label_value, max_size=2)), "kubeReserved": either(st.dictionaries(
               st.sampled_from(["cpu", "memory"]), quantity, max_size=2))}),
    st.lists(st.sampled_from(["--node-labels=a=b", "--register-with-taints=a=b:NoSchedule", "--max-pods=3",
                              "--node-labels=", "--register-with-taints=:::", "--v=2"]) | hostile_text, max_size=3),
    st.lists(st.sampled_from(["  cluster: {name: c, apiServerEndpoint: e, certificateAuthority: x}",
                              "  instance: {localStorage: {strategy: RAID0}}", "---", "  kubelet: [", "kind: x"]),
             max_size=2))

POWERSHELL = st.lists(st.sampled_from([
    "<powershell>", "</powershell>", "[string]$EKSBootstrapScriptFile = 'x'",
    "& $EKSBootstrapScriptFile -EKSClusterName 'c' -KubeletExtraArgs '--node-labels=a=b' 3>&1 4>&1 5>&1 6>&1",
    "Write-Host hi"]) | hostile_text, max_size=5).map("\n".join)


def _mime(parts: list[tuple[str, str]], boundary: str) -> str:
    out = [f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="{boundary}"\n']
    for ctype, body in parts:
        out.append(f"--{boundary}\nContent-Type: {ctype}\n\n{body}\n")
    out.append(f"--{boundary}--\n")
    return "\n".join(out)


single_userdata = st.one_of(shell_script, toml_settings, NODECONFIG, POWERSHELL, hostile_text)
mime_userdata = st.builds(
    _mime,
    st.lists(st.tuples(st.sampled_from(["text/x-shellscript", "application/node.eks.aws", "text/cloud-config",
                                        "text/x-shellscript; charset=\"us-ascii\"", "", "x", "text/plain;;;"]),
                       single_userdata), max_size=4),
    st.sampled_from(["//", "BOUNDARY", "==MYBOUNDARY==", "", "a b", "-"]))
userdata = st.one_of(single_userdata, mime_userdata)


# ---------------------------------------------------------------------------------------------- objects

name = either(st.sampled_from(["default", "gpu", "a", "b", "system"]), hostile_text)

nodepool_spec = maybe({
    "template": either(maybe({
        "metadata": maybe({"labels": either(labels)}),
        "spec": either(maybe({
            "nodeClassRef": either(maybe({"group": either(st.just("karpenter.k8s.aws")),
                                          "kind": either(st.just("EC2NodeClass")), "name": name})),
            "requirements": either(st.lists(requirement, max_size=5)),
            "taints": either(st.lists(taint, max_size=3)),
            "startupTaints": either(st.lists(taint, max_size=2)),
            "expireAfter": either(duration),
            "terminationGracePeriod": either(duration),
        })),
    })),
    "disruption": either(maybe({
        "consolidationPolicy": either(st.sampled_from(["WhenEmpty", "WhenEmptyOrUnderutilized", "WhenUnderutilized"])),
        "consolidateAfter": either(duration),
        "budgets": either(st.lists(either(maybe({
            "nodes": either(st.sampled_from(["0", "1", "10%", "100%", "5"]) | hostile_text),
            "schedule": either(cron), "duration": either(duration),
            "reasons": either(st.lists(st.sampled_from(["Drifted", "Empty", "Underutilized", "drifted"]), max_size=3)),
        })), max_size=4)),
    })),
    "limits": either(st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]), quantity, max_size=3)),
    "weight": either(hostile_int),
})

nodeclass_spec = maybe({
    "amiFamily": either(st.sampled_from(["AL2", "AL2023", "Bottlerocket", "Ubuntu", "Windows2022", "Custom", "al2"])),
    "amiSelectorTerms": either(st.lists(either(maybe({
        "alias": either(st.sampled_from(["al2023@latest", "al2@v20240807", "bottlerocket@1.20.0", "al2023@",
                                         "windows2022@latest", "@"])),
        "id": either(st.just("ami-0123456789abcdef0")), "tags": either(labels)})), max_size=2)),
    "role": name,
    "userData": either(userdata),
    "kubelet": either(maybe({"maxPods": either(hostile_int), "podsPerCore": either(hostile_int),
                             "systemReserved": either(st.dictionaries(st.sampled_from(["cpu", "memory"]), quantity)),
                             "clusterDNS": either(st.lists(label_value, max_size=2))})),
    "subnetSelectorTerms": either(st.lists(maybe({"tags": labels}), max_size=2)),
    "securityGroupSelectorTerms": either(st.lists(maybe({"tags": labels}), max_size=2)),
    "metadataOptions": either(maybe({"httpTokens": either(st.sampled_from(["required", "optional"])),
                                     "httpPutResponseHopLimit": either(hostile_int)})),
})

pod_spec = maybe({
    "nodeSelector": either(labels),
    "tolerations": either(st.lists(either(maybe({
        "key": either(label_key), "operator": either(st.sampled_from(["Equal", "Exists"])),
        "value": either(label_value), "effect": either(st.sampled_from(["NoSchedule", "NoExecute", ""]))})),
        max_size=3)),
    "affinity": either(maybe({"nodeAffinity": maybe({"requiredDuringSchedulingIgnoredDuringExecution": maybe({
        "nodeSelectorTerms": either(st.lists(maybe({"matchExpressions": st.lists(requirement, max_size=3)}),
                                             max_size=2))})})})),
    "containers": either(st.lists(maybe({
        "name": name, "image": either(st.sampled_from(["nginx:1.27", "x@sha256:abc", "a:b:c"]) | _known(
            "huge-number-tag")),
        "resources": either(maybe({"requests": either(st.dictionaries(
            st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "ephemeral-storage", "pods"]), quantity, max_size=3)),
            "limits": either(st.dictionaries(st.sampled_from(["cpu", "memory"]), quantity, max_size=2))}))}),
        max_size=2)),
    "topologySpreadConstraints": either(st.lists(maybe({
        "topologyKey": either(label_key), "maxSkew": either(hostile_int),
        "whenUnsatisfiable": either(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])),
        "labelSelector": maybe({"matchLabels": labels})}), max_size=2)),
})


def _obj(api: str, kind: str, spec) -> st.SearchStrategy:
    return st.fixed_dictionaries({
        "apiVersion": either(st.just(api), st.sampled_from(["v1", "karpenter.sh/v1beta1", ""])),
        "kind": st.just(kind), "metadata": either(maybe({"name": name, "namespace": name, "labels": labels})),
        "spec": either(spec)})


nodepool = _obj("karpenter.sh/v1", "NodePool", nodepool_spec) | _obj("karpenter.sh/v1beta1", "NodePool",
                                                                     nodepool_spec)
nodeclass = _obj("karpenter.k8s.aws/v1", "EC2NodeClass", nodeclass_spec) | _obj(
    "karpenter.k8s.aws/v1beta1", "EC2NodeClass", nodeclass_spec)
deployment = _obj("apps/v1", "Deployment", maybe({
    "replicas": either(hostile_int), "selector": maybe({"matchLabels": labels}),
    "template": maybe({"metadata": maybe({"labels": labels}), "spec": pod_spec})}))
pdb = _obj("policy/v1", "PodDisruptionBudget", maybe({
    "selector": maybe({"matchLabels": labels}), "minAvailable": either(hostile_int | hostile_text),
    "maxUnavailable": either(hostile_int | hostile_text)}))
helm_release = _obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", maybe({
    "chart": maybe({"spec": maybe({"chart": either(st.just("karpenter")), "version": either(st.sampled_from(
        ["1.0.0", "0.37.0", "v1.2.3", "1.x", ">=1.0.0", "~1.1"]) | _known("huge-number-tag"))})}),
    "values": either(st.dictionaries(st.sampled_from(["replicas", "settings"]), hostile_value, max_size=2))}))

resource = st.one_of(nodepool, nodeclass, deployment, pdb, helm_release)


# A well-formed cluster (an EC2NodeClass, a NodePool using it, a Deployment, its PDB, the Karpenter release) with a
# few leaves replaced by hostile values: inputs that get past the schema into the simulations and the rules.
good_requirement = st.one_of(
    st.fixed_dictionaries({"key": st.sampled_from(["kubernetes.io/arch"]), "operator": st.just("In"),
                           "values": st.lists(st.sampled_from(["amd64", "arm64"]), min_size=1, max_size=2)}),
    st.fixed_dictionaries({"key": st.just("karpenter.sh/capacity-type"), "operator": st.sampled_from(["In", "NotIn"]),
                           "values": st.lists(st.sampled_from(["spot", "on-demand", "reserved"]), min_size=1,
                                              max_size=2)}),
    st.fixed_dictionaries({"key": st.just("karpenter.k8s.aws/instance-family"), "operator": st.just("In"),
                           "values": st.lists(st.sampled_from(["m5", "c6g", "r7i", "p4d", "t3"]), min_size=1,
                                              max_size=3)},
                          optional={"minValues": st.integers(1, 4)}),
    st.fixed_dictionaries({"key": st.sampled_from(["karpenter.k8s.aws/instance-cpu",
                                                   "karpenter.k8s.aws/instance-generation"]),
                           "operator": st.sampled_from(["Gt", "Lt"]),
                           "values": st.sampled_from([["2"], ["4"], ["64"]])}),
    st.fixed_dictionaries({"key": st.sampled_from(["topology.kubernetes.io/zone", "team"]),
                           "operator": st.sampled_from(["Exists", "DoesNotExist"])}),
)
good_budget = st.fixed_dictionaries({"nodes": st.sampled_from(["0", "1", "10%", "100%"])}, optional={
    "schedule": st.sampled_from(["0 9 * * 1-5", "@daily", "*/30 * * * *", "0 0 1 * *"]),
    "duration": st.sampled_from(["8h", "30m", "1h30m"]),
    "reasons": st.lists(st.sampled_from(["Drifted", "Empty", "Underutilized"]), max_size=2, unique=True)})
ALIASES = {"AL2": "al2@latest", "AL2023": "al2023@latest", "Bottlerocket": "bottlerocket@latest",
           "Windows2022": "windows2022@latest"}


def _cluster(family, user_data, v1_pool, requirements, budgets, taints, tolerate, requests, replicas, version):
    nodeclass = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
                 "spec": {"amiFamily": family, "role": "KarpenterNodeRole", "userData": user_data,
                          "amiSelectorTerms": [{"alias": ALIASES.get(family, "al2023@latest")}] if family in ALIASES
                          else [{"id": "ami-0123456789abcdef0"}],
                          "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}],
                          "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}]}}
    template = {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                         "requirements": requirements, "taints": taints, "expireAfter": "720h"},
                "metadata": {"labels": {"team": "a"}}}
    pool = {"apiVersion": "karpenter.sh/v1" if v1_pool else "karpenter.sh/v1beta1", "kind": "NodePool",
            "metadata": {"name": "default"},
            "spec": {"template": template, "limits": {"cpu": "1000", "memory": "1000Gi"},
                     "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "1m",
                                    "budgets": budgets}}}
    if not v1_pool:
        template["spec"]["nodeClassRef"] = {"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass",
                                            "name": "default"}
        pool["spec"]["disruption"] = {"consolidationPolicy": "WhenUnderutilized", "budgets": budgets}
        del template["spec"]["expireAfter"]
    pod = {"containers": [{"name": "app", "image": "nginx:1.27", "resources": {"requests": requests}}],
           "nodeSelector": {"kubernetes.io/arch": "amd64"},
           "tolerations": [{"key": t["key"], "operator": "Exists"} for t in taints] if tolerate else []}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "app", "namespace": "default"},
                  "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "a"}},
                           "template": {"metadata": {"labels": {"app": "a"}}, "spec": pod}}}
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "app", "namespace": "default"},
           "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "a"}}}}
    release = {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
               "metadata": {"name": "karpenter", "namespace": "kube-system"},
               "spec": {"chart": {"spec": {"chart": "karpenter", "version": version}}}}
    return [nodeclass, pool, deployment, pdb, release]


def _leaves(data, path=()):
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(data, list) and data:
        for i, v in enumerate(data):
            yield from _leaves(v, path + (i,))
    else:
        yield path


def _poke(docs: list, pokes: list) -> list:
    """`docs` with the values at some of its paths (chosen by index among its leaves and containers) replaced."""
    for index, value in pokes:
        paths = [p for p in _leaves(docs)]
        paths += sorted({p[:n] for p in paths for n in range(1, len(p))})  # containers too
        path = paths[index % len(paths)]
        target = docs
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
    return docs


cluster = st.builds(
    _poke,
    st.builds(_cluster, st.sampled_from(["AL2", "AL2023", "Bottlerocket", "Windows2022", "Custom"]),
              st.none() | userdata,
              st.booleans(), st.lists(good_requirement, max_size=4),
              st.lists(good_budget, max_size=3), st.lists(st.fixed_dictionaries({
                  "key": st.sampled_from(["dedicated", "gpu"]), "value": st.just("x"),
                  "effect": st.sampled_from(["NoSchedule", "NoExecute"])}), max_size=2, unique_by=lambda t: t["key"]),
              st.booleans(), st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                                             st.sampled_from(["100m", "2", "1Gi", "512Mi", "1"]), max_size=3),
              st.integers(0, 20), st.sampled_from(["1.0.6", "0.37.0", "1.3.3"]) | _known("huge-number-tag")),
    st.lists(st.tuples(st.integers(0, 10 ** 6), hostile_value), max_size=3))

resources = st.lists(resource, min_size=1, max_size=5) | cluster


# ---------------------------------------------------------------------------------------------- serialising

def _dump_one(doc, style: str) -> str:
    if style == "json":
        return json.dumps(doc, allow_nan=True) + "\n"
    out = io.StringIO()
    yaml.safe_dump(doc, out, allow_unicode=True, sort_keys=False, default_flow_style=style == "flow", width=80)
    return out.getvalue()


def as_yaml(docs: list, style: str) -> str:
    """`docs` as one YAML stream: block (PyYAML's safe_dump), flow or JSON documents."""
    return "---\n".join(_dump_one(d, style) for d in docs)


yaml_style = st.sampled_from(["block", "flow", "json"])
yaml_stream = st.builds(as_yaml, resources, yaml_style)


# ---------------------------------------------------------------------------------------------- invariants

def text_lines(text: str) -> list[str]:
    """The lines of `text` as the loaders and editors count them: a lone CR ends a line too (an old Mac file)."""
    import re

    return re.split("\r\n|\r|\n", text)


def assert_findings_located(findings, texts: dict[str, str]) -> None:
    """No internal error (KPL006); every finding names a checked file and a position inside it: a line of the file
    (or the line after a final newline) and a column within that line (or just past its end)."""
    internal = [f.message for f in findings if f.code == "KPL006"]
    assert not internal, internal
    for f in findings:
        assert f.file in texts, (f.file, f.code, list(texts))
        lines = text_lines(texts[f.file])
        assert 1 <= f.line <= len(lines), (f.code, f.line, len(lines), f.message)
        assert 1 <= f.column <= len(lines[f.line - 1]) + 1, (f.code, f.line, f.column, f.message)


def assert_no_terminal_controls(out: str) -> None:
    """Nothing from the checked tree reaches the terminal as a control sequence or a workflow command."""
    import re

    bad = re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", out)
    assert bad is None, (repr(bad.group(0)), out[max(0, bad.start() - 80):bad.start() + 40])
    assert not any(ln.lstrip().startswith("::") for ln in out.split("\n")), out
