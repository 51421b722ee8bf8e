"""`karplint diff`'s core: pairing the two sides' objects, their field changes with lines, the document's shape
(validated against schemas/diff.schema.json) and the summary sentences. The drift, rollout and capacity verdicts
themselves are tested in their own modules; here they are what composes the document."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from karplint.diff import impact, summarise
from karplint.diff.pairs import pair_objects
from karplint.diff.sides import load_sides

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "diff.schema.json").read_text())

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  weight: 10
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: [c5, m5, r5]
        - key: karpenter.sh/capacity-type
          operator: In
          values: [spot, on-demand]
"""

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole
  amiSelectorTerms:
    - alias: al2023@v20240807
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def sides(tmp_path: Path, old: dict[str, str], new: dict[str, str], **kw):
    write(tmp_path / "old", old)
    write(tmp_path / "new", new)
    return load_sides(base=None, paths=[], two_paths=("old", "new"), cwd=str(tmp_path), **kw)


def valid(doc: dict) -> dict:
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    return doc


def test_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_pairs_added_removed_changed_and_unchanged(tmp_path):
    old = {"pools.yaml": NODEPOOL.format(name="a") + "---\n" + NODEPOOL.format(name="b") + "---\n"
           + NODEPOOL.format(name="c"), "nc.yaml": NODECLASS}
    new = {"pools.yaml": NODEPOOL.format(name="a") + "---\n" + NODEPOOL.format(name="b").replace("weight: 10",
                                                                                               "weight: 20")
           + "---\n" + NODEPOOL.format(name="d"), "nc.yaml": NODECLASS}
    pairs, problems = pair_objects(*sides(tmp_path, old, new))
    assert problems == []
    assert [(p.kind, p.name, p.status) for p in pairs] == [
        ("NodePool", "a", "unchanged"), ("NodePool", "b", "changed"), ("NodePool", "c", "removed"),
        ("NodePool", "d", "added"), ("EC2NodeClass", "default", "unchanged")]
    assert pairs[1].changes == [{"path": "spec.weight", "before": 10, "after": 20, "line": 26}]


def test_reordered_requirements_and_values_are_no_change(tmp_path):
    pool = NODEPOOL.format(name="a")
    reordered = pool.replace("values: [c5, m5, r5]", "values: [r5, c5, m5]")
    lines = reordered.splitlines(keepends=True)
    first, second = "".join(lines[13:16]), "".join(lines[16:19])  # (the two requirements swapped)
    reordered = "".join(lines[:13]) + second + first
    assert reordered != pool
    pairs, _ = pair_objects(*sides(tmp_path, {"p.yaml": pool}, {"p.yaml": reordered}))
    assert [(p.name, p.status, p.changes) for p in pairs] == [("a", "unchanged", [])]


def test_change_lines_are_the_head_sides_and_the_base_sides_for_a_removed_field(tmp_path):
    old = NODEPOOL.format(name="a").replace("  weight: 10\n", "  weight: 10\n  limits:\n    cpu: 100\n")
    new = "# a comment moves every line down\n" + NODEPOOL.format(name="a").replace("weight: 10", "weight: 5")
    (pair,), _ = pair_objects(*sides(tmp_path, {"p.yaml": old}, {"p.yaml": new}))
    assert pair.changes == [
        {"path": "spec.limits", "before": {"cpu": 100}, "after": None, "line": 7},
        {"path": "spec.weight", "before": 10, "after": 5, "line": 7},
    ]


def test_api_version_move_pairs_the_pool_with_itself(tmp_path):
    old = NODEPOOL.format(name="a").replace("karpenter.sh/v1\n", "karpenter.sh/v1beta1\n")
    (pair,), _ = pair_objects(*sides(tmp_path, {"p.yaml": old}, {"p.yaml": NODEPOOL.format(name="a")}))
    assert pair.status == "changed"
    assert {"path": "apiVersion", "before": "karpenter.sh/v1beta1", "after": "karpenter.sh/v1", "line": 1} \
        in pair.changes


def test_documentation_examples_are_not_objects_of_either_side(tmp_path):
    md = "# Pools\n\n```yaml\n" + NODEPOOL.format(name="doc") + "```\n"
    pairs, _ = pair_objects(*sides(tmp_path, {"README.md": md}, {"README.md": md.replace("c5, ", "")}))
    assert pairs == []


def test_a_name_twice_on_one_side_is_a_problem_and_the_first_is_compared(tmp_path):
    twice = NODEPOOL.format(name="a") + "---\n" + NODEPOOL.format(name="a").replace("weight: 10", "weight: 99")
    pairs, problems = pair_objects(*sides(tmp_path, {"p.yaml": NODEPOOL.format(name="a")}, {"p.yaml": twice}))
    assert [(p.name, p.status) for p in pairs] == [("a", "unchanged")]
    assert problems == ["p.yaml:24:1: NodePool 'a' is also defined at line 4 of the same file (new); the first one "
                        "is compared"]


def test_the_same_name_in_several_files_pairs_file_by_file_and_a_moved_object_follows(tmp_path):
    """An examples directory holds alternatives (aws/karpenter-provider-aws examples/v1: NodePool `default` and
    EC2NodeClass `default` in many files): each file's objects pair with the same file's, and each pool's nodes
    run with the EC2NodeClass of its own file."""
    alt = NODEPOOL.format(name="default") + "---\n" + NODECLASS
    moved = NODEPOOL.format(name="moved").replace("name: default", "name: elsewhere")
    old = {"a.yaml": alt, "b.yaml": alt, "c.yaml": moved}
    new = {"a.yaml": alt, "b.yaml": alt.replace("role: KarpenterNodeRole", "role: Other"), "d.yaml": moved}
    doc = valid(impact(*sides(tmp_path, old, new)))
    assert doc["problems"] == []
    assert [(p["name"], p["file"], p["status"], p["drift"]["verdict"]) for p in doc["nodepools"]] == [
        ("default", "b.yaml", "nodeclass_changed", "all")]
    assert [(c["file"], c["used_by"]) for c in doc["nodeclasses"]] == [("b.yaml", ["default"])]


def test_a_pool_whose_class_is_in_several_other_files_is_unknown(tmp_path):
    old = {"pool.yaml": NODEPOOL.format(name="p"), "x.yaml": NODECLASS, "y.yaml": NODECLASS}
    new = dict(old, **{"y.yaml": NODECLASS.replace("role: KarpenterNodeRole", "role: Other")})
    doc = valid(impact(*sides(tmp_path, old, new)))
    (pool,) = doc["nodepools"]
    assert (pool["status"], pool["drift"]["verdict"]) == ("nodeclass_changed", "unknown")
    assert pool["drift"]["reasons"][0]["why"] == (
        "EC2NodeClass default is defined in 2 files (x.yaml, y.yaml), none of them this NodePool's: which one its "
        "nodes use cannot be told from the files")


def test_clusters_pair_objects_of_the_same_cluster_only(tmp_path):
    config = '[tool.karplint]\nclusters = ["clusters/*"]\n'
    old = {"pyproject.toml": config, "clusters/dev/p.yaml": NODEPOOL.format(name="a"),
           "clusters/prod/p.yaml": NODEPOOL.format(name="a")}
    new = dict(old, **{"clusters/prod/p.yaml": NODEPOOL.format(name="a").replace("weight: 10", "weight: 1")})
    pairs, problems = pair_objects(*sides(tmp_path, old, new))
    assert problems == []
    assert [(p.cluster, p.name, p.status) for p in pairs] == [
        ("clusters/dev", "a", "unchanged"), ("clusters/prod", "a", "changed")]


def test_legacy_provisioner_is_listed_not_analysed(tmp_path):
    prov = ("apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata:\n  name: default\nspec:\n"
            "  ttlSecondsAfterEmpty: {}\n")
    doc = valid(impact(*sides(tmp_path, {"p.yaml": prov.format(30)}, {"p.yaml": prov.format(60)})))
    (pool,) = doc["nodepools"]
    assert (pool["kind"], pool["status"], pool["drift"]["verdict"]) == ("Provisioner", "changed", "unknown")
    assert pool["drift"]["summary"].startswith("not analysed: karpenter.sh/v1alpha5 Provisioner is a legacy API")


def test_a_nodeclass_change_reaches_every_pool_that_names_it(tmp_path):
    old = {"pools.yaml": NODEPOOL.format(name="a") + "---\n" + NODEPOOL.format(name="b"), "nc.yaml": NODECLASS}
    new = dict(old, **{"nc.yaml": NODECLASS.replace("role: KarpenterNodeRole",
                                                    "role: KarpenterNodeRole\n  tags:\n    team: web")})
    doc = valid(impact(*sides(tmp_path, old, new)))
    assert [(p["name"], p["status"], p["drift"]["verdict"]) for p in doc["nodepools"]] == [
        ("a", "nodeclass_changed", "all"), ("b", "nodeclass_changed", "all")]
    (nc,) = doc["nodeclasses"]
    assert (nc["name"], nc["used_by"]) == ("default", ["a", "b"])
    assert doc["summary"][0] == "Merging this replaces every node of NodePools a and b, 10% at a time."
    assert {r["field"] for r in doc["nodepools"][0]["drift"]["reasons"]} == {"spec.tags"}


def test_a_behavioural_change_replaces_no_node(tmp_path):
    old = {"p.yaml": NODEPOOL.format(name="a"), "nc.yaml": NODECLASS}
    new = dict(old, **{"p.yaml": NODEPOOL.format(name="a").replace("weight: 10", "weight: 50")})
    doc = valid(impact(*sides(tmp_path, old, new)))
    (pool,) = doc["nodepools"]
    assert pool["drift"]["verdict"] == "none"
    assert doc["summary"][0] == "Merging this replaces no node."


def test_a_drifting_nodeclass_no_pool_of_the_files_uses_is_said(tmp_path):
    old = {"nc.yaml": NODECLASS}
    new = {"nc.yaml": NODECLASS.replace("role: KarpenterNodeRole", "role: Other")}
    doc = valid(impact(*sides(tmp_path, old, new)))
    assert doc["summary"] == [
        "Merging this changes EC2NodeClass default in a way that drifts nodes, but no NodePool of these files uses "
        "it: the nodes of pools written elsewhere that do are replaced."]


def test_nothing_changed(tmp_path):
    same = {"p.yaml": NODEPOOL.format(name="a"), "nc.yaml": NODECLASS}
    doc = valid(impact(*sides(tmp_path, same, same)))
    assert (doc["nodepools"], doc["nodeclasses"], doc["summary"]) == (
        [], [], ["Merging this changes no NodePool or EC2NodeClass."])


def test_the_release_each_side_deploys_or_the_assumed_one(tmp_path):
    same = {"p.yaml": NODEPOOL.format(name="a")}
    doc = impact(*sides(tmp_path, same, same))
    assert (doc["base"]["release_assumed"], doc["head"]["release"]) == (True, "1.14.1")
    doc = impact(*sides(tmp_path / "pinned", same, same, karpenter_version="1.0.0"))
    assert (doc["base"]["release"], doc["head"]["release"], doc["head"]["release_assumed"]) == (
        "1.0.0", "1.0.0", False)


def test_one_object_that_fails_does_not_stop_the_others(tmp_path, monkeypatch):
    from karplint.diff import behaviour

    def boom(pair):
        if pair.name == "bad":
            raise ValueError("cannot read")
        return []

    monkeypatch.setattr(behaviour, "behaviour_changes", boom)
    pools = NODEPOOL.format(name="bad") + "---\n" + NODEPOOL.format(name="good")
    doc = valid(impact(*sides(tmp_path, {"p.yaml": pools}, {"p.yaml": pools.replace("weight: 10", "weight: 2")})))
    assert [(p["name"], p["drift"]["verdict"]) for p in doc["nodepools"]] == [("bad", "unknown"), ("good", "none")]
    assert doc["problems"] == [
        "p.yaml:4:1: NodePool bad: not analysed (karplint internal error: ValueError: cannot read)"]


def _doc(pools: list[dict], classes=(), problems=()) -> dict:
    return {"nodepools": pools, "nodeclasses": list(classes), "problems": list(problems)}


def _pool(name, verdict, *, status="changed", summary="", rollout=None, capacity=None) -> dict:
    return {"name": name, "status": status, "drift": {"verdict": verdict, "summary": summary}, "rollout": rollout,
            "capacity": capacity}


@pytest.mark.parametrize("pools, expected", [
    ([_pool("general", "all", rollout={"summary": "10% at a time, weekdays only", "never": False}),
      _pool("gpu", "all", rollout={"summary": "10% at a time, weekdays only", "never": False})],
     "Merging this replaces every node of NodePools general and gpu, 10% at a time, weekdays only."),
    ([_pool("spot", "some", summary="nodes of 12 instance types no longer allowed are replaced")],
     "Merging this replaces some nodes of NodePool spot: nodes of 12 instance types no longer allowed are "
     "replaced."),
    ([_pool("gpu", "all", rollout={"summary": "never rolls out: a budget of 0 nodes covers Drifted at every moment",
                                   "never": True, "windows": "never"})],
     "NodePool gpu's nodes drift, but the change never rolls out: a budget of 0 nodes covers Drifted at every "
     "moment."),
    ([_pool("spot", "unknown", summary="nodes may be replaced: The NodePool drift hash version changes")],
     "Merging this may replace nodes of NodePool spot: the NodePool drift hash version changes."),
    ([_pool("new", "new", status="added")], "Merging this adds NodePool new."),
    ([_pool("old", "removed", status="removed"), _pool("w", "none")],
     "Merging this removes NodePool old: its nodes are drained and deleted."),
])
def test_summary_sentences(pools, expected):
    assert summarise(_doc(pools))[0] == expected


def test_capacity_in_the_summary_only_when_a_changed_pool_gains_or_loses():
    quiet = {"summary": "new NodePool: 714 instance types; workloads: cannot be told", "gained_count": 0}
    lost = {"summary": "27 -> 18 instance types (r5 family lost)", "lost_count": 9}
    pools = [_pool("new", "new", status="added", capacity=dict(quiet, gained_count=714)),
             _pool("same", "none", capacity=quiet), _pool("narrow", "none", capacity=lost)]
    assert summarise(_doc(pools))[1:] == ["It adds NodePool new.",
                                          "NodePool narrow: 27 -> 18 instance types (r5 family lost)."]


def test_a_name_added_in_several_files_is_said_once_with_its_count():
    pools = [_pool("gpu", "new", status="added"), _pool("gpu", "new", status="added"), _pool("a", "new", status="added")]
    assert summarise(_doc(pools))[0] == "Merging this adds NodePools gpu (2 files) and a."


def test_a_removed_pool_is_never_summed_up_as_no_node_replaced():
    """(graviton-developer-workshop 5492de5, tests/fixtures/diff/history/26: pools renamed)"""
    pools = [_pool("old", "removed", status="removed"), _pool("w", "none"), _pool("new", "new", status="added")]
    assert summarise(_doc(pools)) == [
        "Merging this removes NodePool old: its nodes are drained and deleted.",
        "No running node of the other NodePools is replaced.", "It adds NodePool new."]
