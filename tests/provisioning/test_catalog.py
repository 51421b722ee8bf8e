"""The instance-type catalog: generated from Karpenter's reference (drift test), read back faithfully, loaded only
when asked for."""

from __future__ import annotations

import subprocess
import sys

from karplint.testing import REPO, need_shared


def test_catalog_is_generated_from_its_source():
    need_shared()
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_instance_types.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_catalog_reads_back_the_reference():
    from karplint.provisioning.catalog import load

    cat = load()
    assert len(cat.types) == 1363 and cat.source["version"] == "v1.14 docs"
    a1 = cat.types["a1.medium"]
    assert a1.labels["kubernetes.io/arch"] == "arm64" and a1.labels["karpenter.k8s.aws/instance-family"] == "a1"
    assert a1.allocatable == {"cpu": "940m", "ephemeral-storage": "17Gi", "memory": "1392Mi", "pods": "8",
                              "vpc.amazonaws.com/pod-eni": "10"}
    assert {"amd64", "arm64"} == cat.values("kubernetes.io/arch")
    assert "m5" in cat.values("karpenter.k8s.aws/instance-family")


def test_catalog_is_not_loaded_by_a_check():
    code = ("import sys\nfrom karplint.testing import lint\n"
            "lint({'np.yaml': 'apiVersion: karpenter.sh/v1\\nkind: NodePool\\nmetadata: {name: x}\\nspec: {}\\n'})\n"
            "print('karplint.provisioning.catalog' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
