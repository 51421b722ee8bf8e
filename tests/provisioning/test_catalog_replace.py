"""`instance-types` replacing the bundled catalog (`--instance-types-mode replace`, option `instance-types-mode`):
`simulate` and `check` use the same catalog for the same configuration; entries may state multi-valued
requirements, offerings and well-known labels (the document form)."""

from __future__ import annotations

import json

from karplint.testing import run_cli

NODEPOOL = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n"
            "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
            "      requirements:\n"
            "        - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n")
PRIVATE = {"m9z.large": {"labels": {"kubernetes.io/arch": "amd64"},
                         "allocatable": {"cpu": "1930m", "memory": "7Gi", "pods": "29"}}}


def _tree(tmp_path, config: str = "") -> None:
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    (tmp_path / ".karplint.toml").write_text(config)


def _simulate(tmp_path, *args: str):
    out = run_cli("simulate", "np.yaml", "-f", "json", *args, cwd=tmp_path)
    return out, (json.loads(out.stdout) if out.returncode == 0 else None)


def test_replace_mode_makes_the_file_the_whole_catalog(tmp_path):
    _tree(tmp_path)
    (tmp_path / "types.json").write_text(json.dumps(PRIVATE))
    out, added = _simulate(tmp_path, "--instance-types", "types.json")
    assert out.returncode == 0, out.stderr
    assert added["nodepools"][0]["instance_types"] > 500  # the bundled amd64 types and m9z.large
    out, replaced = _simulate(tmp_path, "--instance-types", "types.json", "--instance-types-mode", "replace")
    assert out.returncode == 0, out.stderr
    assert replaced["instance_types_known"] == 1 and replaced["nodepools"][0]["instance_types"] == 1
    assert replaced["catalog"]["mode"] == "replace"


def test_config_replace_mode_is_used_by_check_and_simulate(tmp_path):
    # m9z.large (2 vCPUs) replaces the catalog: a NodePool asking for more than 8 vCPUs launches nothing (KPL901)
    # in check and in simulate; its m5 is unknown to the configured catalog (KPL905 names that catalog)
    _tree(tmp_path, '[options]\ninstance-types-mode = "replace"\n[options.instance-types."m9z.large"]\n'
                    'labels = { "kubernetes.io/arch" = "amd64", "karpenter.k8s.aws/instance-cpu" = "2" }\n'
                    'allocatable = { cpu = "1930m" }\n')
    (tmp_path / "np.yaml").write_text(NODEPOOL + "        - {key: karpenter.k8s.aws/instance-cpu, operator: Gt, "
                                                 "values: ['8']}\n")
    out, data = _simulate(tmp_path)
    assert out.returncode == 0, out.stderr
    assert data["instance_types_known"] == 1 and data["nodepools"][0]["instance_types"] == 0
    out = run_cli("check", "--no-cache", "--output-format", "json", "--select", "KPL901", "np.yaml", cwd=tmp_path)
    found = json.loads(out.stdout)["findings"]
    assert [(f["code"], f["line"]) for f in found] == [("KPL901", 10)], out.stdout
    assert found[0]["notes"][0] == ("`karpenter.k8s.aws/instance-cpu Gt [8]` (line 10) together leave none of the 1 "
                                    'instance type of the configured catalog (`instance-types-mode = "replace"`)')
    (tmp_path / "np.yaml").write_text(NODEPOOL + "        - {key: karpenter.k8s.aws/instance-family, operator: In, "
                                                 "values: [m5]}\n")
    out = run_cli("check", "--no-cache", "--output-format", "json", "--select", "KPL905", "np.yaml", cwd=tmp_path)
    found = json.loads(out.stdout)["findings"]
    assert [(f["code"], f["line"], f["message"]) for f in found] == [
        ("KPL905", 10, '`m5` is unknown to the configured catalog (`instance-types-mode = "replace"`)')], out.stdout
    # the same trees with the bundled catalog: m5 exists and so do types with more than 8 vCPUs
    (tmp_path / ".karplint.toml").write_text("")
    out = run_cli("check", "--no-cache", "--output-format", "json", "--select", "KPL905", "np.yaml", cwd=tmp_path)
    assert json.loads(out.stdout)["findings"] == [], out.stdout


def test_bad_mode_and_replace_without_types_are_usage_errors(tmp_path):
    _tree(tmp_path, '[options]\ninstance-types-mode = "replace"\n')
    out = run_cli("simulate", "np.yaml", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert ".karplint.toml:2" in out.stderr and "instance-types-mode" in out.stderr, out.stderr
    out = run_cli("check", "np.yaml", cwd=tmp_path)
    assert out.returncode == 2 and ".karplint.toml:2" in out.stderr, out.stderr
    _tree(tmp_path, '[options]\ninstance-types-mode = "swap"\n')
    out = run_cli("check", "np.yaml", cwd=tmp_path)
    assert out.returncode == 2 and '"add" or "replace"' in out.stderr, out.stderr
    _tree(tmp_path)
    out = run_cli("simulate", "np.yaml", "--instance-types-mode", "replace", cwd=tmp_path)
    assert out.returncode == 2 and "needs instance types" in out.stderr, out.stderr
    out = run_cli("simulate", "np.yaml", "--instance-types-mode", "swap", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_bad_entry_of_a_document_is_named_on_its_line(tmp_path):
    _tree(tmp_path)
    doc = {"karplint-catalog": 1, "types": {"x.large": {"labels": {}, "allocatable": {"cpu": "1"},
                                                         "offerings": "spot"}}}
    (tmp_path / "types.json").write_text(json.dumps(doc, indent=1))
    out = run_cli("simulate", "np.yaml", "--instance-types", "types.json", "--instance-types-mode", "replace",
                  cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "types.json:9: instance type `x.large`: `offerings` must be a list" in out.stderr, out.stderr
    (tmp_path / "types.json").write_text(json.dumps({"karplint-catalog": 1, "typos": {}}, indent=1))
    out = run_cli("simulate", "np.yaml", "--instance-types", "types.json", cwd=tmp_path)
    assert out.returncode == 2 and "types.json:3: catalog document: unknown key `typos`; did you mean `types`?" \
        in out.stderr, out.stderr


def test_multi_valued_requirements_offerings_and_well_known_labels():
    """The catalog model itself: a type offered as spot in zone a only and on-demand in zones a and b; a label
    the catalog registers as well-known may be required by a pod although no NodePool defines it."""
    from karplint.provisioning.catalog import configured
    from karplint.provisioning.requirements import Requirement, Requirements

    doc = {"karplint-catalog": 1, "well-known-labels": ["size"], "types": {"t": {
        "labels": {"kubernetes.io/arch": "amd64"}, "allocatable": {"cpu": "4", "pods": "5"},
        "requirements": {"kubernetes.io/os": ["linux", "windows"], "size": ["small"]},
        "offerings": [{"karpenter.sh/capacity-type": "spot", "topology.kubernetes.io/zone": "a"},
                      {"karpenter.sh/capacity-type": "on-demand", "topology.kubernetes.io/zone": "a"},
                      {"karpenter.sh/capacity-type": "on-demand", "topology.kubernetes.io/zone": "b"}]}}}
    cat = configured({"instance-types": doc, "instance-types-mode": "replace"})
    t = cat.types["t"]
    assert t.requirements["topology.kubernetes.io/zone"] == {"a", "b"}
    assert t.requirements["karpenter.sh/capacity-type"] == {"spot", "on-demand"}
    assert cat.values("kubernetes.io/os") == {"linux", "windows"} and cat.well_known == {"size"}

    spot_b = Requirements()
    spot_b.add(Requirement.new("karpenter.sh/capacity-type", "In", ["spot"]),
               Requirement.new("topology.kubernetes.io/zone", "In", ["b"]))
    spot_a = Requirements()
    spot_a.add(Requirement.new("karpenter.sh/capacity-type", "In", ["spot"]),
               Requirement.new("topology.kubernetes.io/zone", "In", ["a"]))
    assert not t.offered(spot_b) and t.offered(spot_a)

    # Through the simulation: a NodePool for spot in zone b launches nothing; windows is one of the type's OSes
    # whatever the node class (none here); `size` is well-known, a custom label is not.
    from karplint.model import Model
    from karplint.provisioning.simulate import simulate
    from karplint.readers import loader

    def pool(name, reqs):
        return (f"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: {name}}}\nspec:\n  template:\n"
                f"    spec:\n      requirements: {json.dumps(reqs)}\n---\n")

    def pod(name, selector):
        return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  nodeSelector: {json.dumps(selector)}\n"
                "  containers: [{name: c, image: i}]\n---\n")

    text = (pool("spot-b", [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
                            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["b"]}])
            + pool("any", []) + pod("windows", {"kubernetes.io/os": "windows"}) + pod("small", {"size": "small"})
            + pod("custom", {"team": "a"}) + pod("darwin", {"kubernetes.io/os": "darwin"}))
    docs, _ = loader.load(loader.decode("t.yaml", text.encode()))
    model = Model()
    model.add(docs)
    run = simulate(model, cat)
    assert {p.name: len(p.types) for p in run.pools} == {"spot-b": 0, "any": 1}
    got = {w.pod.res.name: w.hostable for w in run.workloads}
    assert got == {"windows": True, "small": True, "custom": False, "darwin": False}


def test_a_configured_type_without_cpu_memory_or_pods_is_not_called_too_small():
    """`extend`'s promise: cpu, memory or pods the entry does not state are unknown, not zero."""
    from karplint.model import Model
    from karplint.provisioning.catalog import configured
    from karplint.provisioning.simulate import simulate
    from karplint.readers import loader

    cat = configured({"instance-types": {"x9.large": {"labels": {"kubernetes.io/arch": "amd64"}, "allocatable": {}}},
                      "instance-types-mode": "replace"})
    text = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n"
            "      requirements: []\n---\n"
            "apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  containers:\n  - name: c\n    image: i\n"
            "    resources: {requests: {cpu: '64', memory: 512Gi}}\n")
    docs, _ = loader.load(loader.decode("t.yaml", text.encode()))
    model = Model()
    model.add(docs)
    got = {w.pod.res.name: w.hostable for w in simulate(model, cat).workloads}
    assert got == {"big": True}
