"""`karplint budgets PATH`: the weekly timeline per reason (text and JSON)."""

from __future__ import annotations

import json
from pathlib import Path

from karplint.testing import run_cli

WINDOW = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "disruption_timeline" / "window_bad.yaml"


def test_json_timeline(tmp_path):
    proc = run_cli("budgets", str(WINDOW), "--nodepool", "nightly", "--nodes", "7", "-f", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    [pool] = data["nodepools"]
    assert pool["nodepool"] == "nightly" and pool["weekly"] is True
    drift = pool["reasons"]["Drifted"]
    assert drift["unlimited_minutes"] == 8400
    first, window = drift["segments"][:2]
    assert (first["start"], first["end"], first["limit"], first["allowed"]) == ("Mon 00:00", "Mon 02:00", "unlimited",
                                                                                 None)
    assert (window["start"], window["end"], window["limit"], window["allowed"]) == ("Mon 02:00", "Mon 06:00", "20%",
                                                                                     2)
    assert drift["segments"][-1]["end"] == "Sun 24:00"


def test_text_timeline(tmp_path):
    proc = run_cli("budgets", str(WINDOW), "--nodepool", "drift-sunday", "--nodes", "7", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "NodePool/drift-sunday" in out
    assert "Drifted: unlimited 162h00m of 168h" in out
    assert "Mon ####...................." in out and "Sun ......................##" in out


def test_stdin_and_errors(tmp_path):
    proc = run_cli("budgets", "-", "-f", "json", stdin=WINDOW.read_text(), cwd=tmp_path)
    assert proc.returncode == 0 and len(json.loads(proc.stdout)["nodepools"]) == 3
    proc = run_cli("budgets", str(WINDOW), "--nodepool", "nope", cwd=tmp_path)
    assert proc.returncode == 1 and "no NodePool named 'nope'" in proc.stderr
    proc = run_cli("budgets", str(WINDOW), "--week", "yesterday", cwd=tmp_path)
    assert proc.returncode == 2 and "not a date" in proc.stderr
    proc = run_cli("budgets", str(tmp_path / "missing.yaml"), cwd=tmp_path)
    assert proc.returncode == 2 and "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_week_option_moves_monthly_schedules(tmp_path):
    f = tmp_path / "np.yaml"
    f.write_text("""\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: monthly}
spec:
  disruption:
    consolidateAfter: 0s
    budgets:
      - {nodes: "0", schedule: "0 0 13 * *", duration: 2h}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
""")
    proc = run_cli("budgets", str(f), "--week", "2024-02-14", "-f", "json", cwd=tmp_path)
    pool = json.loads(proc.stdout)["nodepools"][0]
    assert pool["week_start"] == "2024-02-12T00:00Z" and pool["weekly"] is False
    segs = pool["reasons"]["Empty"]["segments"]
    assert [(s["start"], s["limit"]) for s in segs] == [("Mon 00:00", "unlimited"), ("Tue 00:00", "0 (blocked)"),
                                                        ("Tue 02:00", "unlimited")]
