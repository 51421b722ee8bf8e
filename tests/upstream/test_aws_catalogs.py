"""The catalogs of the AWS provider's translated tests (tests/upstream/catalogs/aws-*.json) are what
scripts/gen_upstream_aws_catalogs.py builds from the provider's fake EC2 data and Karpenter's instance-type
reference (checked when the mirror is on this machine), and the harness reads them as catalogs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness import CATALOGS, HERE, _catalog

REPO = HERE.parent.parent
MIRROR = Path("/work/.mirror/aws+karpenter-provider-aws/repo")


@pytest.mark.skipif(not MIRROR.is_dir(), reason="the upstream mirror is not on this machine")
def test_aws_catalogs_are_generated_from_the_provider():
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_upstream_aws_catalogs.py"), "--check",
                           str(MIRROR)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_aws_fake_catalog_holds_the_fake_ec2_types():
    catalog = _catalog("aws-fake.json")
    assert sorted(catalog.types) == sorted([
        "c6g.large", "dl1.24xlarge", "g4ad.16xlarge", "g4dn.8xlarge", "g5.12xlarge", "inf2.24xlarge", "inf2.xlarge",
        "m5.large", "m5.metal", "m5.xlarge", "m6idn.32xlarge", "m7i-flex.large", "t3.large", "t4g.medium",
        "t4g.small", "t4g.xlarge", "trn1.2xlarge"])
    assert catalog.types["dl1.24xlarge"].allocatable["habana.ai/gaudi"] == "8"
    assert sorted(p.name for p in CATALOGS.glob("aws-*.json")) == [
        "aws-a1-medium.json", "aws-fake-local-zone.json", "aws-fake-spot-1a.json", "aws-fake-windows.json", "aws-fake.json",
        "aws-test-type.json"]
