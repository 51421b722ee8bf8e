"""The harness itself: it reports what disagrees (naming the upstream test), rejects malformed cases, and sees what
`karplint simulate --instance-types FILE --instance-types-mode replace` sees for the same files."""

from __future__ import annotations

import json
import shutil

from harness import CASES, CATALOGS, run_case, simulate_case

from karplint.testing import run_cli

ZONE_CASE = CASES / "core-scheduling" / "L205-nodepool-zone-constraint.yaml"


def test_a_wrong_expectation_is_reported_with_the_upstream_test(tmp_path):
    case = tmp_path / ZONE_CASE.name
    case.write_text(ZONE_CASE.read_text().replace("topology.kubernetes.io/zone: test-zone-2",
                                                  "topology.kubernetes.io/zone: test-zone-1"))
    assert run_case(case) == [
        "kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/suite_test.go@v1.14.1#L205 (Scheduling / "
        "Custom Constraints / Well Known Labels / should use NodePool constraints): Pod `pod`: label "
        "topology.kubernetes.io/zone may be ['test-zone-2'] in karplint, upstream test-zone-1"]
    case.write_text(ZONE_CASE.read_text().replace("schedules: true", "schedules: true\n    colour: red"))
    assert run_case(case) == [f"{case.name}: expect.pod: unknown key `colour` (known: schedules, pools, types, "
                              "types_include, types_exclude, labels)"]
    case.write_text(ZONE_CASE.read_text().replace("  pod:\n", "  other:\n"))
    assert sorted(run_case(case)) == [f"{case.name}: Pod `pod` has no `expect` entry",
                                      f"{case.name}: no Pod `other` among the case's objects"]


def test_the_harness_and_simulate_agree(tmp_path):
    """The case's objects through the command line, with the fake catalog replacing the bundled one: the same
    instance types for the NodePool, and the same verdict for the pod."""
    _header, run, catalog = simulate_case(ZONE_CASE)
    objects = ZONE_CASE.read_text().split("\n---\n", 1)[1]  # (the header is not a Kubernetes object)
    (tmp_path / "case.yaml").write_text(objects)
    shutil.copy(CATALOGS / "fake.json", tmp_path / "fake.json")
    out = run_cli("simulate", "case.yaml", "--instance-types", "fake.json", "--instance-types-mode", "replace",
                  "-f", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["instance_types_known"] == len(catalog.types) == 6
    assert data["nodepools"][0]["instance_types"] == len(run.pools[0].types) == 6
    assert [w["hostable"] for w in data["workloads"]] == [w.hostable for w in run.workloads] == [True]
