"""Findings that stated something untrue (issue 26): reasons a pool is never disrupted for called unlimited
(KPL420, KPL426), a suggested zero budget that blocks reasons the user allowed (KPL420), a note on every reason for
a budget that covers one (KPL406)."""

from __future__ import annotations

from karplint.testing import codes, lint

POOL = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  disruption:\n"
        "    consolidationPolicy: {policy}\n    consolidateAfter: 1m\n    budgets:\n{budgets}"
        "  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n"
        "        name: default\n      requirements: []\n")


def pool(budgets: str, policy: str = "WhenEmptyOrUnderutilized") -> str:
    return POOL.format(policy=policy, budgets=budgets)


# ---------------------------------------------------------------------------------------------- KPL426

def test_kpl426_underutilized_is_not_unlimited_on_a_when_empty_pool():
    budgets = '      - nodes: "10%"\n        reasons: [Drifted, Empty]\n'
    assert lint(pool(budgets, "WhenEmpty"), config={"select": ["KPL426"]}) == []
    # the same budgets on a pool that consolidates underutilized nodes: Underutilized is unlimited there
    found = lint(pool(budgets), config={"select": ["KPL426"]})
    assert codes(found) == [("KPL426", 9, 5)]
    assert found[0].message.splitlines()[0] == ("Underutilized has no disruption budget: unlimited at all times, "
                                                "while Drifted and Empty are limited")
    assert "if it should be rate limited" in found[0].message


def test_kpl426_consolidate_after_never_leaves_only_drift():
    text = pool('      - nodes: "10%"\n        reasons: [Drifted]\n').replace("consolidateAfter: 1m",
                                                                              "consolidateAfter: Never")
    assert lint(text, config={"select": ["KPL426"]}) == []


# ---------------------------------------------------------------------------------------------- KPL420

def test_kpl420_suggested_zero_budget_names_only_the_unlimited_reasons():
    budgets = ('      - nodes: "20%"\n        schedule: "0 2 * * *"\n        duration: 4h\n'
               '      - nodes: "5"\n        reasons: [Empty]\n')
    found = lint(pool(budgets), config={"select": ["KPL420"]})
    assert codes(found) == [("KPL420", 11, 9)]
    message = found[0].message
    assert message.splitlines()[0] == "outside this budget's window, Drifted and Underutilized are unlimited"
    # Empty is limited to 5 nodes at all times: a zero budget for every reason would block it outside the window
    assert ('`{nodes: "0", schedule: "0 6 * * *", duration: 20h, reasons: [Drifted, Underutilized]}`'
            in message)


def test_kpl420_suggestion_leaves_out_a_reason_the_pool_never_uses():
    budgets = ('      - nodes: "20%"\n        reasons: [Drifted, Empty, Underutilized]\n'
               '        schedule: "0 2 * * *"\n        duration: 4h\n')
    found = lint(pool(budgets, "WhenEmpty"), config={"select": ["KPL420"]})
    assert codes(found) == [("KPL420", 12, 9)]
    assert found[0].message.splitlines()[0] == "outside this budget's window, Drifted and Empty are unlimited"
    assert "reasons: [Drifted, Empty]}`" in found[0].message and "Underutilized" not in found[0].message


def test_kpl420_v1beta1_every_method_is_singular():
    text = pool('      - nodes: "20%"\n        schedule: "0 2 * * *"\n        duration: 4h\n', "WhenUnderutilized").replace(
        "karpenter.sh/v1\n", "karpenter.sh/v1beta1\n").replace("    consolidateAfter: 1m\n", "")
    found = lint(text, config={"select": ["KPL420"]})
    assert [f.message.splitlines()[0] for f in found] == [
        "outside this budget's window, every disruption method is unlimited"]


# ---------------------------------------------------------------------------------------------- KPL406

def test_kpl406_note_names_only_the_blocked_reason():
    found = lint(pool('      - nodes: "0"\n        reasons: [Drifted]\n'), config={"select": ["KPL406"]})
    assert codes(found) == [("KPL406", 10, 16)]
    assert found[0].message.splitlines()[0] == 'budget `nodes: "0"` blocks Drifted for good'
    assert found[0].message.splitlines()[-1] == (
        "note: nodes are then never replaced on drift; Empty and Underutilized are not limited by this budget; "
        "expiration, interruption and repair still apply (aws/karpenter-provider-aws#6383)")
    assert "consolidated" not in found[0].message


def test_kpl406_note_for_every_reason_is_unchanged():
    found = lint(pool('      - nodes: "0"\n'), config={"select": ["KPL406"]})
    assert found[0].message.splitlines()[0] == 'budget `nodes: "0"` blocks Drifted, Empty and Underutilized for good'
    assert "nodes are then never consolidated or replaced on drift; expiration" in found[0].message


# ---------------------------------------------------------------------------------------------- KPL261

NODECLASS = ("apiVersion: karpenter.k8s.aws/{version}\nkind: EC2NodeClass\nmetadata:\n  name: windows\nspec:\n"
             "  amiFamily: Custom\n  role: KarpenterNodeRole\n  amiSelectorTerms:\n    - {term}\n"
             "  userData: |\n    <powershell>\n    & \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\" "
             "-EKSClusterName my-cluster\n    </powershell>\n"
             "  subnetSelectorTerms:\n    - tags: {{karpenter.sh/discovery: my-cluster}}\n"
             "  securityGroupSelectorTerms:\n    - tags: {{karpenter.sh/discovery: my-cluster}}\n")


def test_kpl261_powershell_names_no_windows_release():
    found = lint(NODECLASS.format(version="v1", term="id: ami-0123456789abcdef0"), config={"select": ["KPL261"]})
    assert codes(found) == [("KPL261", 10, 13)]
    first, help_ = found[0].message.splitlines()[:2]
    assert first == "a Windows image (PowerShell userData) under amiFamily Custom, which Karpenter treats as Linux"
    assert help_ == ("help: use the `amiFamily` of the image's Windows Server release (`Windows2019`, `Windows2022` or "
                     "`Windows2025`), or its alias (`windows2019@latest`, `windows2022@latest` or "
                     "`windows2025@latest`)")


def test_kpl261_offers_alias_only_where_the_release_has_it():
    text = NODECLASS.format(version="v1", term="name: Windows_Server-2019-English-Core-EKS_Optimized-1.30-*")
    new = lint(text, config={"select": ["KPL261"]}, karpenter_version="1.1.0")
    assert codes(new) == [("KPL261", 9, 13)]
    assert new[0].message.splitlines()[1] == "help: use `amiFamily: Windows2019` (or `alias: windows2019@latest`) with the image"
    old = lint(text.replace("karpenter.k8s.aws/v1\n", "karpenter.k8s.aws/v1beta1\n"), config={"select": ["KPL261"]},
               karpenter_version="0.37.0")
    assert codes(old) == [("KPL261", 9, 13)]
    assert old[0].message.splitlines()[1] == "help: use `amiFamily: Windows2019` with the image"
    # before v1.0 (the v1 API served for the upgrade only) neither alias nor Windows2025 is offered
    ps = lint(NODECLASS.format(version="v1", term="id: ami-0123456789abcdef0"), config={"select": ["KPL261"]},
              karpenter_version="0.37.0")
    assert ps[0].message.splitlines()[1] == ("help: use the `amiFamily` of the image's Windows Server release "
                                             "(`Windows2019` or `Windows2022`)")


# ---------------------------------------------------------------------------------------------- KPL424

AUTO_POOL = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n"
             "    spec:\n      expireAfter: {expire}\n{tgp}      nodeClassRef:\n        group: eks.amazonaws.com\n"
             "        kind: NodeClass\n        name: default\n      requirements: []\n")


def test_kpl424_auto_mode_rejects_the_nodepool():
    found = lint(AUTO_POOL.format(expire="720h", tgp=""), config={"select": ["KPL424"]})
    assert codes(found) == [("KPL424", 8, 20)]
    assert found[0].severity == "error"
    lines = found[0].message.splitlines()
    assert lines[0] == "EKS Auto Mode rejects this NodePool: expireAfter plus terminationGracePeriod exceeds 21 days (504h)"
    assert lines[2] == "note: expireAfter 720h plus terminationGracePeriod 24h (Auto Mode's default) is 744h"
    assert lines[1] == ("help: keep expireAfter + terminationGracePeriod at or below 504h (e.g. expireAfter 480h with "
                        "the 24h default terminationGracePeriod)")
    assert ('"the sum of expireAfter and terminationGracePeriod (defaulted to 24h) may not exceed 21 days" on apply '
            "(aws-controllers-k8s/test-infra#1000") in lines[3]
    tight = lint(AUTO_POOL.format(expire="480h", tgp="      terminationGracePeriod: 48h\n"),
                 config={"select": ["KPL424"]})
    assert [(f.code, f.line, f.column, f.severity) for f in tight] == [("KPL424", 8, 20, "error")]
    assert "e.g. expireAfter 456h with terminationGracePeriod 48h)" in tight[0].message
    assert lint(AUTO_POOL.format(expire="480h", tgp=""), config={"select": ["KPL424"]}) == []  # 480h + 24h = 504h


def test_kpl424_never_is_a_warning_that_says_may():
    found = lint(AUTO_POOL.format(expire="Never", tgp=""), config={"select": ["KPL424"]})
    assert [(f.code, f.line, f.column, f.severity) for f in found] == [("KPL424", 8, 20, "warning")]
    assert found[0].message.splitlines()[0] == "expireAfter `Never` under EKS Auto Mode: nodes end at 21 days (504h), and Auto Mode may reject it"


# ---------------------------------------------------------------------------------------------- KPL421

PDB = ("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: api\n  namespace: web\nspec:\n"
       "  maxUnavailable: 0\n  selector:\n    matchLabels: {{app: api}}\n---\n"
       "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: web\nspec:\n  replicas: 3\n"
       "  template:\n    metadata:\n      labels: {{app: api}}\n    spec:\n{placement}"
       "      containers:\n        - name: api\n          image: api:1\n")
ON_DEMAND_POOL = ("---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n"
                  "    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
                  "      requirements:\n"
                  "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n")


def test_kpl421_a_karpenter_only_selector_is_evidence_without_a_nodepool():
    text = PDB.format(placement="      nodeSelector:\n        karpenter.sh/nodepool: web\n")
    found = lint(text, config={"select": ["KPL421"]})
    assert codes(found) == [("KPL421", 7, 19)]
    lines = found[0].message.splitlines()
    assert lines[0] == "maxUnavailable 0 allows no eviction of the 3 pods it selects: Deployment/api (3 replicas)"
    assert lines[2].startswith("note: their pods select `karpenter.sh/nodepool`, which only Karpenter's nodes "
                               "carry, and no NodePool of the checked files can take them: the node of a NodePool "
                               "defined elsewhere that runs them is never consolidated")
    assert "until that NodePool's terminationGracePeriod, if it sets one, runs out" in lines[2]
    # without the selector nothing says the pods run on Karpenter's nodes
    assert lint(PDB.format(placement=""), config={"select": ["KPL421"]}) == []


def test_kpl421_required_affinity_on_capacity_type_no_nodepool_of_the_run_takes():
    affinity = ("      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
                "            nodeSelectorTerms:\n              - matchExpressions:\n"
                "                  - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}\n")
    found = lint(PDB.format(placement=affinity) + ON_DEMAND_POOL, config={"select": ["KPL421"]})
    assert codes(found) == [("KPL421", 7, 19)]
    assert "note: their pods select `karpenter.sh/capacity-type`, which only" in found[0].message
    # a second term that any node satisfies: no evidence
    other = affinity + "              - matchExpressions:\n                  - {key: zone, operator: Exists}\n"
    assert lint(PDB.format(placement=other) + ON_DEMAND_POOL, config={"select": ["KPL421"]}) == []


def test_kpl421_evidence_for_two_budgets_in_one_run():
    """The second PDB judged on the selector's evidence raised an internal error (KPL006) on the bench tree."""
    one = PDB.format(placement="      nodeSelector:\n        karpenter.sh/nodepool: web\n")
    two = one.replace(" api", " db").replace("app: api", "app: db")
    found = lint({"one.yaml": one, "two.yaml": two})
    assert [(f.code, f.file, f.line, f.column) for f in found if f.code in ("KPL421", "KPL006")] \
        == [("KPL421", "one.yaml", 7, 19), ("KPL421", "two.yaml", 7, 19)]
