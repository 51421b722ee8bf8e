"""The committed schemas/ are exactly what scripts/gen_schemas.py produces, and the loader API finds them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from karplint.testing import need_shared
from karplint import schema as kschema
from karplint.model.versions import BUNDLED_RELEASES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shared() -> Path:
    return need_shared()


def _gen():
    spec = importlib.util.spec_from_file_location("gen_schemas", ROOT / "scripts" / "gen_schemas.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# The schemas of karplint's own output (hand-written, beside the generated ones): not scripts/gen_schemas.py's
OWN = {"diff.schema.json", "chart-values.json"}  # (scripts/gen_schemas.py HAND_WRITTEN)


def _tree(base: Path) -> dict[str, bytes]:
    return {p.relative_to(base).as_posix(): p.read_bytes() for p in sorted(base.rglob("*.json"))
            if p.relative_to(base).as_posix() not in OWN}


def test_no_drift(tmp_path, shared):
    out = tmp_path / "schemas"
    _gen().generate(shared / "karpenter" / "crds", out)
    fresh, committed = _tree(out), _tree(ROOT / "schemas")
    assert sorted(fresh) == sorted(committed), "schemas/ file set differs: run scripts/gen_schemas.py"
    changed = [p for p in fresh if fresh[p] != committed[p]]
    assert not changed, f"schemas/ out of date (never hand-edit): {changed[:5]}; run scripts/gen_schemas.py"


def test_releases_match_versions_table():
    assert tuple(kschema.releases()) == BUNDLED_RELEASES


def test_load_schema_keeps_kubernetes_extensions():
    np = kschema.load_schema("1.14.1", "karpenter.sh", "v1", "NodePool")
    assert np is not None and np["type"] == "object"
    disruption = np["properties"]["spec"]["properties"]["disruption"]
    assert disruption["required"] == ["consolidateAfter"]
    assert "x-kubernetes-validations" in disruption["properties"]["budgets"]
    assert "description" not in np
    prov = kschema.load_schema("0.32.10", "karpenter.sh", "v1alpha5", "Provisioner")
    assert prov["properties"]["spec"]["properties"]["provider"]["x-kubernetes-preserve-unknown-fields"] is True
    assert kschema.load_schema("1.14.1", "karpenter.sh", "v1beta1", "NodePool") is None
    assert kschema.load_schema("0.37.8", "karpenter.sh", "v1beta1", "NodePool") is not None
    assert kschema.load_schema("core-main-22664681", "karpenter.sh", "v1", "NodePool") is not None


def test_index_lists_every_file():
    base = kschema.schema_dir()
    index = json.loads((base / "index.json").read_text())
    listed = {k["file"] for part in ("releases", "snapshots") for e in index[part].values() for k in e["kinds"]}
    on_disk = {p.relative_to(base).as_posix() for p in base.rglob("*.json")} - {"index.json", *OWN}
    assert listed == on_disk


def test_selection():
    sel = kschema.select("karpenter.sh", "v1", "NodePool", "1.14.1")
    assert sel.release == "1.14.1" and sel.exact
    sel = kschema.select("karpenter.sh", "v1beta1", "NodePool", "0.36.0")
    assert (sel.release, sel.upper, sel.exact) == ("0.32.10", "0.37.0", False)
    # not served by the target: the API it declares, in the bundled release nearest to the target that served it
    sel = kschema.select("karpenter.sh", "v1beta1", "NodePool", "1.1.0")
    assert (sel.release, sel.exact, sel.upper, sel.unserved) == ("1.0.0", False, None, True)
    assert kschema.select("karpenter.sh", "v1alpha5", "Provisioner", "1.14.1").release == "0.32.10"
    sel = kschema.select("karpenter.sh", "v1", "NodePool", "0.36.0")  # v1 first served in 0.36.3
    assert (sel.release, sel.unserved) == ("0.37.8", True) and "oldest bundled release" in sel.note
    sel = kschema.select("karpenter.sh", "v1", "NodePool", "0.36.3")  # served from 0.36.3, bundled from 0.37.8
    assert sel.release == "0.37.8" and not sel.exact
    assert kschema.select("apps", "v1", "Deployment", "1.14.1") is None


def test_wheel_layout(tmp_path, monkeypatch):
    """In a wheel the files live at karplint/_data/schemas; KARPLINT_SCHEMAS or that path is found first."""
    import shutil

    shutil.copytree(ROOT / "schemas", tmp_path / "schemas")
    monkeypatch.setenv("KARPLINT_SCHEMAS", str(tmp_path / "schemas"))
    kschema.schema_dir.cache_clear()
    try:
        assert kschema.schema_dir() == tmp_path / "schemas"
    finally:
        monkeypatch.delenv("KARPLINT_SCHEMAS")
        kschema.schema_dir.cache_clear()


def test_every_pattern_compiles_in_python():
    """The CRDs' patterns are Go RE2; the validator uses Python's re: every one must compile (same meaning)."""
    import re

    def patterns(s):
        if isinstance(s, dict):
            for k, v in s.items():
                if k == "pattern" and isinstance(v, str):
                    yield v
                elif k not in ("default", "enum", "x-kubernetes-validations"):
                    yield from patterns(v)
        elif isinstance(s, list):
            for x in s:
                yield from patterns(x)

    seen = {p for f in kschema.schema_dir().rglob("*.json") for p in patterns(json.loads(f.read_text()))}
    assert len(seen) > 20
    for p in seen:
        re.compile(p)


def test_regenerating_keeps_the_hand_written_schemas(tmp_path, shared):
    out = tmp_path / "schemas"
    out.mkdir()
    (out / "diff.schema.json").write_text("{}\n")
    (out / "stale.json").write_text("{}\n")
    _gen().generate(shared / "karpenter" / "crds", out)
    assert (out / "diff.schema.json").read_text() == "{}\n" and not (out / "stale.json").exists()
