"""Hostile sizes for the provisioning simulation (SECURITY.md, "Time and memory bombs"): huge requirement value
lists, thousands of NodePools and workloads. Each run stays far under 10 s and 1 GiB, and what a budget leaves out
is said (KPL004 in `check`, a "not simulated" line in `simulate`), never a partial verdict shown as complete.

The generators are scaled down from the issue's inputs (100,000 values; 10,000 NodePools with 10,000 pods) to
sizes where the code before the budgets already took many seconds or held every pod-NodePool verdict."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

from karplint.provisioning import placement, simulate
from karplint.testing import REPO, codes, lint, run_json

NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
{labels}    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values:
{values}
{taints}"""


def _pool(name: str, values: list[str], team: str | None = None) -> str:
    labels = f"    metadata:\n      labels: {{team: {team}}}\n" if team else ""
    taints = f"      taints: [{{key: team, value: {team}, effect: NoSchedule}}]\n" if team else ""
    return NODEPOOL.format(name=name, labels=labels, values="\n".join(f"            - {v}" for v in values),
                           taints=taints)


def _app(name: str, team: str) -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      nodeSelector: {{team: {team}}}
      tolerations: [{{key: team, value: {team}, effect: NoSchedule}}]
      containers: [{{name: c, image: nginx:1.27, resources: {{requests: {{cpu: "1"}}}}}}]
"""


def _unknown_types(n: int, start: int = 0) -> list[str]:
    """Well-formed instance types the catalog does not know: each one costs a spelling search."""
    return [f"m{i % 9 + 1}x.{i}xlarge" for i in range(start, start + n)]


def test_huge_requirement_value_lists(monkeypatch):
    """A NodePool listing 6,000 unknown instance types is simulated, with 100 findings and a note that the rest
    are not reported (before: a spelling search rebuilding the catalog's tables, three times per value, and 6,000
    findings); one bringing more distinct values than the run's budget is not simulated: KPL004 on its
    requirements, and no verdict on it."""
    monkeypatch.setattr(simulate, "MAX_DISTINCT_VALUES", 8_000, raising=False)
    files = {"a.yaml": _pool("wide", _unknown_types(6_000)), "b.yaml": _pool("wider", _unknown_types(3_000, 6_000))}
    started = time.monotonic()
    found = [f for f in lint(files) if f.code.startswith(("KPL9", "KPL004"))]
    elapsed = time.monotonic() - started
    assert elapsed < 10, elapsed
    on_b = [f for f in found if f.file == "b.yaml"]
    assert codes(on_b) == [("KPL004", 10, 9)]
    assert on_b[0].message.startswith(
        "NodePool `wider` was not simulated: too large (its requirements list 3,000 values, 3,000 of them new to "
        "the run, over karplint's budget of 8,000 distinct requirement values per run)")
    on_a = [f for f in found if f.file == "a.yaml"]
    assert [f.code for f in on_a] == ["KPL905"] * 101
    assert on_a[-1].message == "more than 100 findings of KPL905 on this NodePool; the rest are not reported"
    assert (on_a[-1].line, on_a[-1].column) == (113, 15)


def test_nodepools_past_the_budget_are_named(tmp_path):
    """Past 500 NodePools the rest are not simulated, and KPL910 judges no workload: said on the 501st (before:
    nothing said, and KPL910 silently passed every workload)."""
    pools = "---\n".join(_pool(f"p{i:03}", ["m5.large"], team=f"t{i}") for i in range(simulate.MAX_POOLS + 2))
    (tmp_path / "pools.yaml").write_text(pools)
    (tmp_path / "apps.yaml").write_text(_app("lost", "nowhere"))
    rc, report, err = run_json("check", "--no-cache", ".", "--select", "KPL9,KPL004", cwd=tmp_path)
    found = report["findings"]
    assert rc == 1 and [(f["code"], f["file"], f["line"], f["column"]) for f in found] == [
        ("KPL004", "pools.yaml", _line(pools, "name: p500"), 9)]
    assert found[0]["message"].startswith(
        "NodePool `p500` and the 1 after it were not simulated: too large (the run has 502 NodePools, over "
        "karplint's budget of 500)")


def _line(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def _teams(pools: int, apps: int) -> dict[str, str]:
    return {"pools.yaml": "---\n".join(_pool(f"p{i:03}", ["m5.large"], team=f"t{i}") for i in range(pools)),
            "apps.yaml": "---\n".join(_app(f"a{i:03}", f"t{i % pools}") for i in range(apps))}


def test_pod_nodepool_checks_are_budgeted(monkeypatch):
    """KPL910 stops at its budget of pod-NodePool verdicts and says where (before: no budget; 10,000 NodePools by
    10,000 pods are 10^8 verdicts). A lost workload before the budget is still reported."""
    files = _teams(20, 30)
    files["apps.yaml"] = _app("lost", "nowhere") + "---\n" + files["apps.yaml"]
    monkeypatch.setattr(placement, "MAX_PLACEMENT_CHECKS", 20 * 10, raising=False)
    found = [f for f in lint(files) if f.code in ("KPL004", "KPL910")]
    assert [(f.code, f.file, f.line) for f in found] == [
        ("KPL910", "apps.yaml", 4), ("KPL004", "apps.yaml", _line(files["apps.yaml"], "a009"))]
    assert found[1].message == (
        "Deployment `a009` and the 20 workloads after it were not checked against the NodePools: too large (over "
        "karplint's budget of 200 pod-NodePool verdicts per rule and run)")
    monkeypatch.setattr(placement, "MAX_PLACEMENT_CHECKS", 10**6, raising=False)
    assert [codes([f]) for f in lint(files) if f.code in ("KPL004", "KPL910")] == [[("KPL910", 4, 9)]]


def test_pods_with_the_same_constraints_count_once(monkeypatch):
    """The budget counts distinct constraints: 30 copies of a lost workload on 20 NodePools are 20 verdicts, each
    copy reported (KPL910), nothing left out, in `check` and in `simulate`."""
    files = _teams(20, 0)
    files["apps.yaml"] = "---\n".join(_app(f"lost{i}", "nowhere") for i in range(30))
    monkeypatch.setattr(placement, "MAX_PLACEMENT_CHECKS", 40)
    found = [f for f in lint(files) if f.code in ("KPL004", "KPL910")]
    assert [(f.code, f.line) for f in found] == [
        ("KPL910", _line(files["apps.yaml"], f"lost{i}\n")) for i in range(30)]
    from karplint.model import Model
    from karplint.provisioning.catalog import load
    from karplint.readers import loader

    model = Model()
    for name, text in files.items():
        model.add(loader.load(loader.decode(name, text.encode()))[0])
    run = simulate.simulate(model, load())
    assert run.omitted == [] and [w.counts for w in run.workloads] == [{False: 20}] * 30


def test_workloads_past_the_budget_are_named(monkeypatch):
    monkeypatch.setattr(simulate, "MAX_WORKLOADS", 5)
    files = _teams(3, 8)
    found = [f for f in lint(files) if f.code == "KPL004"]
    assert [(f.file, f.line) for f in found] == [("apps.yaml", _line(files["apps.yaml"], "a005"))]
    assert found[0].message == ("Deployment `a005` and the 2 workloads after it were not checked against the "
                                "NodePools: too large (the run has 8 workloads, over karplint's budget of 5)")


def _simulate(path, *args) -> tuple[subprocess.CompletedProcess, float, int]:
    """`karplint simulate` in a child: the result, its wall time and its peak RSS in bytes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "karplint", "simulate", str(path), *args], capture_output=True,
                          text=True, cwd=REPO, timeout=120)
    elapsed = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, elapsed, max(peak, before) * 1024


def test_simulate_keeps_a_few_verdicts_per_workload(tmp_path):
    """60 NodePools by 200 workloads: `simulate` keeps the NodePools that can host each workload and the closest
    misses, ten at most, and counts the rest (before: all 12,000 verdicts, in memory and in the output; at the
    issue's size 3.8 GB and 440 MB of JSON)."""
    for name, text in _teams(60, 200).items():
        (tmp_path / name).write_text(text)
    proc, elapsed, peak = _simulate(tmp_path, "--output-format", "json")
    assert proc.returncode == 0 and elapsed < 10 and peak < 1 << 30, (proc.stderr, elapsed, peak)
    data = json.loads(proc.stdout)
    first = data["workloads"][0]
    assert first["name"] == "a000" and first["hostable"] is True
    assert [v["nodepool"] for v in first["nodepools"]] == ["p000"] + [f"p{i:03}" for i in range(1, 10)]
    assert first["nodepool_counts"] == {"can_host": 1, "cannot": 59, "cannot_tell": 0}
    assert all(len(w["nodepools"]) == simulate.SHOWN_VERDICTS for w in data["workloads"])
    assert data["not_simulated"] == []
    proc, elapsed, peak = _simulate(tmp_path)
    assert "    ... and 50 more NodePools (50 cannot)\n" in proc.stdout


def test_simulate_says_what_it_left_out(tmp_path):
    pools = "---\n".join(_pool(f"p{i:03}", ["m5.large"]) for i in range(simulate.MAX_POOLS + 1))
    (tmp_path / "pools.yaml").write_text(pools)
    proc, elapsed, peak = _simulate(tmp_path)
    assert proc.returncode == 0 and elapsed < 10, (proc.stderr, elapsed)
    assert proc.stdout.endswith(
        f"not simulated: {tmp_path}/pools.yaml:{_line(pools, 'name: p500')}: NodePool `p500` and the 0 after "
        "it were not simulated: too large (the run has 501 NodePools, over karplint's budget of 500)\n"
        "  note: no provisioning verdict (KPL901-KPL910) covers them, and no workload of the run is checked against "
        "the NodePools (KPL910)\n")


def test_long_value_lists_are_shortened_in_messages():
    """A requirement quoted in a message shows its first 200 values (before: all of them, 100,000 values made a
    1.5 MB message)."""
    from karplint.provisioning.catalog import load

    amd64 = sorted(t.name for t in load().types.values() if t.labels.get("kubernetes.io/arch") == "amd64")[:250]
    text = _pool("x86", amd64) + "        - {key: kubernetes.io/arch, operator: In, values: [arm64]}\n"
    found = [f for f in lint({"np.yaml": text}) if f.code == "KPL901"]
    assert codes(found) == [("KPL901", 263, 11)]
    shown = ", ".join(amd64[:200])
    assert (f"note: `node.kubernetes.io/instance-type In [{shown}, and 50 more]` (line 10) and "
            "`kubernetes.io/arch In [arm64]` (line 263) together leave none") in found[0].message


def test_dead_values_are_bounded():
    """20 NodePools listing every amd64 instance type but a different one, among which only m5 and c5 types can
    launch: 100 dead values reported per NodePool and a note that the rest are not (before: 1,400 findings per
    NodePool, each a scan of the whole catalog for the requirements that exclude it: 18 s here, minutes at 10 MB)."""
    from karplint.provisioning.catalog import load

    amd64 = sorted(t.name for t in load().types.values() if t.labels.get("kubernetes.io/arch") == "amd64")
    families = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5]}\n"
    files = {f"p{i:02}.yaml": _pool(f"p{i}", amd64[:i] + amd64[i + 1:]) + families for i in range(20)}
    started = time.monotonic()
    found = [f for f in lint(files) if f.code.startswith("KPL9")]
    assert time.monotonic() - started < 10
    assert [f.code for f in found] == ["KPL903"] * 101 * 20
    last = found[100]
    assert last.message == "more than 100 findings of KPL903 on this NodePool; the rest are not reported"
    assert (last.file, last.line, last.column) == ("p00.yaml", 122, 15)
    assert found[0].message.startswith(f"`{amd64[1]}` can never be launched: the NodePool's other requirements "
                                       "exclude it\nhelp: remove")
