"""Where the provisioning simulation agrees with Karpenter's scheduler (issue 26, "Karpenter's tests are the
specification"): label aliases, resources no instance type offers, AMI family compatibility, typos of family names,
RuntimeClass overhead, minValues after a pod's own requirements, strict `Lt`/`Gt` bounds, `spec.limits` below the
smallest type. Each test names the upstream source it follows."""

from __future__ import annotations


from karplint.testing import codes, lint

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: {family}
  role: KarpenterNodeRole
  subnetSelectorTerms:
    - tags: {{karpenter.sh/discovery: c}}
  securityGroupSelectorTerms:
    - tags: {{karpenter.sh/discovery: c}}
  amiSelectorTerms:
    - alias: {alias}
"""
ALIASES = {"AL2023": "al2023@v20240807", "Bottlerocket": "bottlerocket@v1.20.0", "Windows2022": "windows2022@latest",
           "AL2": "al2@v20240807"}


def nodepool(name: str, requirements: str, extra: str = "") -> str:
    """A NodePool on EC2NodeClass `default`; `requirements`: YAML lines of the list, indented by 8."""
    return (f"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {name}\nspec:\n{extra}  template:\n"
            "    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n"
            f"        name: default\n      requirements:\n{requirements}")


def deployment(name: str, pod_spec: str) -> str:
    """A Deployment whose pod spec is `pod_spec` (YAML lines indented by 6) plus one container."""
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n"
            f"  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
            f"    spec:\n{pod_spec}")


def run(files: dict[str, str], family: str = "AL2023", prefix: str = "KPL9", **kw):
    files = dict(files)
    files.setdefault("nodeclass.yaml", NODECLASS.format(family=family, alias=ALIASES[family]))
    return [f for f in lint(files, **kw) if f.code.startswith(prefix)]


FAMILY_M5 = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}\n"
CONTAINER = "      containers:\n        - name: c\n          image: nginx\n"


# ------------------------------------------------------------------------------------------ label aliases

def test_the_ebs_csi_zone_label_is_the_zone():
    """aws/karpenter-provider-aws pkg/operator/operator.go@v1.14.1#L81 registers `topology.ebs.csi.aws.com/zone`
    as an alias of the zone; "should support individual instance type labels" (instancetype/suite_test.go#L223)
    schedules a pod selecting it. Before: "label ... does not have known values" (KPL910 error)."""
    pod = ("      nodeSelector:\n        karpenter.sh/nodepool: general\n"
           "        topology.ebs.csi.aws.com/zone: us-east-1a\n" + CONTAINER)
    assert run({"pool.yaml": nodepool("general", FAMILY_M5), "apps.yaml": deployment("zonal", pod)}) == []


def test_an_alias_in_required_affinity_is_normalised_too():
    """`beta.kubernetes.io/arch` is `kubernetes.io/arch` (core pkg/apis/v1/labels.go@v1.14.1#L121): an arm64 pod
    on an amd64-only pool cannot be hosted; the EBS zone alias with an affinity term can."""
    affinity = ("      nodeSelector: {{karpenter.sh/nodepool: general}}\n      affinity:\n        nodeAffinity:\n"
                "          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n"
                "              - matchExpressions:\n                  - {{key: {key}, operator: In, values: [{v}]}}\n"
                + CONTAINER)
    files = {"pool.yaml": nodepool("general", FAMILY_M5),
             "a.yaml": deployment("zonal", affinity.format(key="topology.ebs.csi.aws.com/zone", v="us-east-1a")),
             "b.yaml": deployment("arm", affinity.format(key="beta.kubernetes.io/arch", v="arm64"))}
    found = run(files)
    assert codes(found) == [("KPL910", 4, 9)]
    assert found[0].file.endswith("b.yaml")
    assert "`kubernetes.io/arch In [arm64]`" in found[0].message


def test_placement_reads_the_alias_as_the_zone():
    """`can_land` (taints, PDB and do-not-disrupt rules) reads the alias as the zone: a pool restricted to one zone
    hosts a pod selecting that zone through the alias, and not one selecting another zone. Before: the alias was
    a custom label no NodePool sets (never lands)."""
    from karplint.model import Model
    from karplint.provisioning.placement import can_land
    from karplint.readers.loader import decode, load

    text = nodepool("zonal", "        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}\n")
    docs, problems = load(decode("pool.yaml", text.encode()))
    assert not problems
    model = Model()
    model.add(docs)
    np = next(iter(model.nodepools()))
    assert can_land({"nodeSelector": {"topology.ebs.csi.aws.com/zone": "us-east-1a"}}, np)
    assert not can_land({"nodeSelector": {"topology.ebs.csi.aws.com/zone": "us-east-1b"}}, np)


# ------------------------------------------------------------------------------------------ minValues after the pod

def test_a_pod_pinning_one_instance_type_breaks_min_values():
    """kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaim.go@v1.14.1#L602
    (`filterInstanceTypesByRequirements`): minValues is checked on the types left after the pod's own requirements
    and requests; under the default Strict policy a shortfall leaves none ("should not schedule when minValues
    requirement is not met", pkg/controllers/provisioning/suite_test.go@v1.14.1#L2911)."""
    reqs = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5], minValues: 2}\n"
    pinned = ("      nodeSelector:\n        karpenter.sh/nodepool: general\n"
              "        node.kubernetes.io/instance-type: m5.large\n" + CONTAINER)
    free = "      nodeSelector:\n        karpenter.sh/nodepool: general\n" + CONTAINER
    found = run({"pool.yaml": nodepool("general", reqs), "a.yaml": deployment("pinned", pinned),
                 "b.yaml": deployment("free", free)})
    assert codes(found) == [("KPL910", 4, 9)]
    assert found[0].file.endswith("a.yaml")
    assert found[0].message.split("\n")[1] == (
        "help: closest is NodePool `general`: minValues 2 on `karpenter.k8s.aws/instance-family` cannot be met by "
        "the 1 instance type that fits the pod (1 distinct value: m5)")


def test_requests_that_leave_one_family_break_min_values():
    """The same check after the resource fit (same source): 300Gi of memory fits m5.24xlarge and m5.metal only,
    no c5 (192 GiB at most): one family is left of the two minValues asks for."""
    reqs = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5], minValues: 2}\n"
    big = ("      nodeSelector:\n        karpenter.sh/nodepool: general\n" + CONTAINER +
           "          resources: {requests: {memory: 300Gi}}\n")
    found = run({"pool.yaml": nodepool("general", reqs), "a.yaml": deployment("big", big)})
    assert codes(found) == [("KPL910", 4, 9)]
    assert "minValues 2 on `karpenter.k8s.aws/instance-family` cannot be met" in found[0].message


# ------------------------------------------------------------------------------------------ AMI family compatibility

def test_al2023_launches_no_a1():
    """aws/karpenter-provider-aws pkg/providers/instancetype/compatibility/compatibility.go@v1.14.1#L65 ("should
    mark availability of a1 instance type offerings based on AMI", instancetype/suite_test.go@v1.14.1#L3145): a
    NodePool of a1 alone launches nothing under AL2023, and does under Bottlerocket."""
    a1 = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [a1]}\n"
    found = run({"pool.yaml": nodepool("arm", a1)})
    assert codes(found) == [("KPL901", 13, 11)]
    assert found[0].message.split("\n")[:2] == [
        "NodePool `arm` can launch no instance type",
        "help: `c6g.medium` would pass without `karpenter.k8s.aws/instance-family In [a1]`"]
    assert "note: the EC2NodeClass (`amiFamily AL2023 cannot run a1 instance types`) and " \
           "`karpenter.k8s.aws/instance-family In [a1]` (line 13) together leave none" in found[0].message
    assert run({"pool.yaml": nodepool("arm", a1)}, family="Bottlerocket") == []


def test_a1_among_other_families_is_a_dead_value_under_al2023():
    reqs = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m6g, a1]}\n"
    found = run({"pool.yaml": nodepool("arm", reqs)})
    assert codes(found) == [("KPL903", 13, 80)]
    assert found[0].message.split("\n")[:2] == [
        "`a1` can never be launched: amiFamily AL2023 cannot run a1 instance types",
        "help: remove `a1`, or use another AMI family in EC2NodeClass `default`"]


def test_windows_launches_amd64_types_only():
    """An arm64 type has no OS under a Windows family (types.go@v1.14.1#L313 `getOS`), so the Windows AMI
    (windows.go@v1.14.1#L63, os=windows) maps to none (amifamily/ami.go#L228 `MapToInstanceTypes`): a Windows
    NodePool of m6g (arm64) and m5 launches m5 only."""
    from karplint.provisioning.catalog import load
    from karplint.provisioning.nodepools import NodeClassFacts, simulate_pool
    from karplint.model import Model
    from karplint.readers.loader import decode, load as load_docs

    reqs = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m6g, m5]}\n"
    docs, _ = load_docs(decode("pool.yaml", nodepool("win", reqs).encode()))
    model = Model()
    model.add(docs)
    np = next(iter(model.nodepools()))
    sim = simulate_pool(np, load(), NodeClassFacts(ami_family="Windows2022"))
    assert {t.labels["karpenter.k8s.aws/instance-family"] for t in sim.types} == {"m5"}
    found = run({"pool.yaml": nodepool("win", reqs)}, family="Windows2022")
    assert codes(found) == [("KPL903", 13, 75)]
    assert found[0].message.split("\n")[0] == (
        "`m6g` can never be launched: amiFamily Windows2022 runs on amd64 instance types only")


# ------------------------------------------------------------------------------------------ typos of family names

def test_a_family_one_slip_from_a_real_one_is_a_warning_with_did_you_mean():
    """`c7ng` is `c7gn` with two letters swapped, `m55` is `m5` with a digit doubled: likely typos (warning,
    did-you-mean); `m10g` (a new generation) and `m7gx` (a new variant) may be real newer names (info)."""
    reqs = ("        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c7ng, m10g, m7gx, m55]}\n"
            "        - {key: node.kubernetes.io/instance-type, operator: In, values: [c7ng.large]}\n")
    found = run({"pool.yaml": nodepool("typo", reqs)})
    assert codes(found) == [("KPL905", 13, 75), ("KPL905", 13, 81), ("KPL905", 13, 87), ("KPL905", 13, 93),
                            ("KPL905", 14, 74)]
    assert [f.severity for f in found] == ["warning", "info", "info", "warning", "warning"]
    assert found[0].parts[0] == ("`c7ng` matches no instance family of the bundled catalog: likely `c7gn` with `ng` "
                                 "swapped (v1.14 docs, aws/karpenter-provider-aws@1d927085)")
    assert found[0].parts[1] == ("did you mean `c7gn`?",)
    assert found[3].parts[1] == ("did you mean `m5`?",)
    assert found[4].parts[1] == ("did you mean `c7gn.large`?",)
    assert found[1].parts[0].startswith("`m10g` is unknown to the bundled catalog")


def test_a_typo_leaves_the_pool_unjudged():
    """A likely typo may still be a real newer name: the NodePool is not called empty (KPL901) for it."""
    reqs = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c7ng]}\n"
    found = run({"pool.yaml": nodepool("typo", reqs)})
    assert codes(found) == [("KPL905", 13, 75)]


# ------------------------------------------------------------------------------------------ resources no type offers

NODEPOOL_SELECTOR = "      nodeSelector:\n        karpenter.sh/nodepool: general\n"


def _requesting(name: str, resource: str) -> str:
    return deployment(name, NODEPOOL_SELECTOR + CONTAINER +
                      f"          resources: {{requests: {{{resource}: 1}}, limits: {{{resource}: 1}}}}\n")


def test_an_extended_resource_no_type_offers_fits_nowhere():
    """`resources.Fits` (kubernetes-sigs/karpenter pkg/utils/resources/resources.go@v1.14.1#L188) against the
    type's allocatable, which lacks the resource: no type fits (kubernetes-sigs/karpenter#751). A warning: a node
    that already advertises it (a device plugin) may take the pods. Before: the resource was ignored."""
    found = run({"pool.yaml": nodepool("general", FAMILY_M5), "a.yaml": _requesting("foo", "example.com/foo")})
    assert codes(found) == [("KPL910", 4, 9)]
    assert found[0].severity == "warning"
    assert found[0].parts[1] == ("closest is NodePool `general`: requests `example.com/foo`, which no instance type "
                                 "offers to Karpenter",)
    assert found[0].parts[2][2].startswith("Karpenter launches no node for the pods (\"incompatible with "
                                           "nodepool\"); they stay Pending unless a node already advertises")


def test_private_ipv4_address_is_offered_on_windows_only():
    """"should not launch instance type for vpc.amazonaws.com/PrivateIPv4Address if VPC resource controller
    doesn't advertise it" (aws/karpenter-provider-aws pkg/providers/instancetype/suite_test.go@v1.14.1#L704): the
    provider gives it to Windows types only (types.go@v1.14.1#L156). Under AL2023 nothing fits; under Windows the
    per-type count is not in the catalog: cannot tell."""
    files = {"pool.yaml": nodepool("general", FAMILY_M5),
             "a.yaml": _requesting("ipv4", "vpc.amazonaws.com/PrivateIPv4Address")}
    found = run(files)
    assert codes(found) == [("KPL910", 4, 9)]
    assert "which Karpenter gives to Windows nodes only" in found[0].message
    assert run(files, family="Windows2022") == []


def test_resources_the_catalog_knows_or_a_node_overlay_adds_are_not_reported():
    """GPUs are in the catalog (m5 has none: the usual "more than any ... offers" miss), habana.ai/gaudi is a
    provider resource the catalog lacks (cannot tell), and a NodeOverlay's `spec.capacity` adds resources
    (kubernetes-sigs/karpenter pkg/apis/v1alpha1/nodeoverlay.go@v1.14.1#L84)."""
    overlay = ("apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: foo\nspec:\n"
               "  requirements: []\n  capacity:\n    example.com/foo: 8\n")
    files = {"pool.yaml": nodepool("general", FAMILY_M5), "a.yaml": _requesting("gaudi", "habana.ai/gaudi"),
             "b.yaml": _requesting("foo", "example.com/foo"), "overlay.yaml": overlay,
             "c.yaml": _requesting("gpu", "nvidia.com/gpu")}
    found = run(files)
    assert codes(found) == [("KPL910", 4, 9)]
    assert found[0].file.endswith("c.yaml") and found[0].severity == "error"
    assert "requests nvidia.com/gpu 1, more than any of its" in found[0].message


# ------------------------------------------------------------------------------------------ limits

def test_limits_below_the_smallest_type_launch_nothing():
    """kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go@v1.14.1#L1069
    (`filterByRemainingResources`: a type whose capacity exceeds what the limits leave is dropped; "should not
    schedule if limits would be exceeded", pkg/controllers/provisioning/suite_test.go@v1.14.1#L832). m5's
    smallest type has 2 vCPUs and 8 GiB (7577Mi of capacity after the VM overhead)."""
    limits = "  limits:\n    cpu: 1\n    memory: 4Gi\n"
    found = run({"pool.yaml": nodepool("general", FAMILY_M5, extra=limits)})
    assert codes(found) == [("KPL907", 7, 10), ("KPL907", 8, 13)]
    assert [f.severity for f in found] == ["error", "warning"]
    assert found[0].parts == (
        "NodePool `general` can launch no node under its `cpu` limit (1)",
        ("raise `limits.cpu` to at least 2, or allow smaller instance types",),
        ("the smallest instance type it allows, m5.large, has 2 vCPUs of capacity; Karpenter drops the types whose "
         "capacity exceeds what the limit leaves (\"all available instance types exceed limits for nodepool\"), so "
         "pods that need the NodePool stay Pending",))
    assert found[1].parts[0] == "NodePool `general` can launch no node under its `memory` limit (4Gi)"
    assert found[1].parts[2][0].startswith("the smallest instance type it allows, m5.large, has 7577Mi of capacity")

def test_limits_some_type_fits_under_are_fine():
    """2 vCPUs fit a `cpu: 2` limit (capacity equal to the limit is allowed: `Cmp(capacity, remaining) > 0`);
    `cpu: 0` stops a pool on purpose; a GPU limit on a pool of types without GPUs is no obstacle (capacity 0)."""
    for limits in ("  limits:\n    cpu: 2\n", "  limits:\n    cpu: 0\n", "  limits:\n    nvidia.com/gpu: 1\n"):
        assert run({"pool.yaml": nodepool("general", FAMILY_M5, extra=limits)}) == [], limits


# ------------------------------------------------------------------------------------------ RuntimeClass overhead

RUNTIME_CLASS = """\
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: kata
handler: kata
overhead:
  podFixed:
    cpu: "2"
"""


def test_runtime_class_overhead_counts_in_the_requests():
    """"should take pod runtime class into consideration" (kubernetes-sigs/karpenter
    pkg/controllers/provisioning/scheduling/suite_test.go@v1.14.1#L1546): the RuntimeClass's `overhead.podFixed`
    (set on the pod by the API server's RuntimeClass admission) adds to the requests. m5.large and m5.xlarge
    (3920m allocatable) hold 2 cpus but not 2 + 2; a pool of those two then hosts nothing."""
    reqs = "        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge]}\n"
    pod = (NODEPOOL_SELECTOR + "      runtimeClassName: kata\n" + CONTAINER +
           "          resources: {requests: {cpu: 2}}\n")
    files = {"pool.yaml": nodepool("general", reqs), "a.yaml": deployment("sandboxed", pod)}
    assert run(files) == []  # (no RuntimeClass in the run: nothing known to add)
    found = run(dict(files, **{"rc.yaml": RUNTIME_CLASS}))
    assert codes(found) == [("KPL910", 4, 9)]
    assert found[0].parts[1] == ("closest is NodePool `general`: requests cpu 4, more than any of its 2 compatible "
                                 "instance types offers (largest: m5.xlarge with 3920m allocatable)",)
    # A pod that sets its own `overhead` keeps it (the admission rejects a mismatch; it is the API server's).
    own = pod.replace("      runtimeClassName: kata\n", "      runtimeClassName: kata\n      overhead: {cpu: 100m}\n")
    assert run({"pool.yaml": nodepool("general", reqs), "a.yaml": deployment("sandboxed", own),
                "rc.yaml": RUNTIME_CLASS}) == []


# ------------------------------------------------------------------------------------------ strict Lt / Gt

def test_lt_and_gt_are_strict_bounds():
    """kubernetes-sigs/karpenter pkg/scheduling/requirement.go@v1.14.1 (`NewRequirementWithFlexibility`: Lt N is
    Lte N-1, Gt N is Gte N+1; "should schedule compatible requirements with Operator=Lt",
    scheduling/suite_test.go@v1.14.1#L273): `instance-memory Lt 8192` excludes m5.large (8192 MiB), the smallest
    m5, so an m5 NodePool launches nothing; `Gt 393216` excludes m5.24xlarge and m5.metal (393216 MiB)."""
    for op, value in (("Lt", "8192"), ("Gt", "393216")):
        reqs = FAMILY_M5 + f"        - {{key: karpenter.k8s.aws/instance-memory, operator: {op}, values: ['{value}']}}\n"
        found = run({"pool.yaml": nodepool("general", reqs)})
        assert codes(found) == [("KPL901", 14, 11)], op
    reqs = FAMILY_M5 + "        - {key: karpenter.k8s.aws/instance-memory, operator: Lt, values: ['8193']}\n"
    assert run({"pool.yaml": nodepool("general", reqs)}) == []


def test_min_values_on_an_lt_bound():
    """"scheduler should fail if the minValues in Lt operator is not satisfied" (instance_selection_test.go
    @v1.14.1#L961): `instance-memory Lt 16384` with minValues 2 leaves m5.large alone (one value)."""
    reqs = FAMILY_M5 + ("        - {key: karpenter.k8s.aws/instance-memory, operator: Lt, values: ['16384'], "
                        "minValues: 2}\n")
    found = run({"pool.yaml": nodepool("general", reqs)})
    assert codes(found) == [("KPL904", 14, 85)]
    assert found[0].parts[0] == ("minValues 2 cannot be met: 1 distinct value(s) of "
                                 "`karpenter.k8s.aws/instance-memory` remain")


def test_a_value_another_requirement_also_excludes_is_that_requirement_s():
    """Karpenter's examples/v1/multiple-arch.yaml (aws/karpenter-provider-aws, Apache-2.0) asks for categories
    `c` and `a` with `instance-generation Gt 2`: a1 (generation 1) is excluded by that requirement, whatever the
    AMI family; the help must not suggest another AMI family."""
    reqs = ("        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, a]}\n"
            "        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ['2']}\n")
    found = run({"pool.yaml": nodepool("arm", reqs)})
    assert codes(found) == [("KPL903", 13, 80)]
    assert found[0].parts[:2] == (
        "`a` can never be launched: the NodePool's other requirements exclude it",
        ("remove `a`, or relax `karpenter.k8s.aws/instance-generation Gt [2]`",))
