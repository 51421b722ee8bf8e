"""The kubelet flag table (karplint/userdata/kubelet_flags.json) is generated from the kubelet's registration code by
scripts/gen_kubelet_flags.py; the sources are never committed, so the drift check runs only where they are present."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "karplint" / "userdata" / "kubelet_flags.json"
SRC = Path(os.environ.get("KARPLINT_KUBELET_FLAG_SOURCES", "/tmp/kubelet-flags-src"))


def test_table_has_the_flags_karpenter_and_users_pass():
    flags = json.loads(TABLE.read_text())["flags"]
    assert flags["max-pods"]["type"] == "int32"
    assert flags["kube-reserved"]["type"] == "map-string-string"
    assert flags["register-with-taints"]["type"] == "taints"
    assert flags["node-labels"]["type"] == "node-labels"
    assert flags["eviction-hard"]["type"] == "map-langle"
    assert flags["feature-gates"]["type"] == "map-string-bool"
    assert flags["container-runtime"]["removed_in"] == "1.27"
    assert "maxpods" not in flags and "register-with-taint" not in flags


def test_every_entry_is_well_formed():
    table = json.loads(TABLE.read_text())
    assert table["minors"][0] == "1.25" and table["minors"][-1] == "1.34"
    for name, entry in table["flags"].items():
        assert name == name.lower() and "_" not in name, name
        assert isinstance(entry["type"], str)
    for src in table["sources"]:
        assert src["repo"] == "kubernetes/kubernetes" and src["path"]


@pytest.mark.skipif(not SRC.is_dir(), reason=f"kubelet sources not present in {SRC} (see scripts/gen_kubelet_flags.py)")
def test_table_matches_its_sources():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_kubelet_flags.py"), "--src", str(SRC), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
