"""Positions the run stage worked out are kept with the cached documents: when a cross-file rule runs again over an
unchanged file, its findings' positions come from the cache, not from parsing the file again, and are the same."""

from __future__ import annotations

from karplint.engine import InputFile, check
from karplint.engine.cache import Cache
from karplint.readers import fastload
from karplint.testing import make_config

CILIUM = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: cilium, namespace: kube-system}
spec:
  template:
    spec:
      containers:
        - name: cilium-agent
          image: quay.io/cilium/cilium:v1.16.0
"""

NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
"""


def _findings(report):
    return [(f.code, f.file, f.span, f.message, f.fix) for f in report.findings]


def test_positions_come_back_from_the_cache(tmp_path, monkeypatch):
    (tmp_path / "cilium.yaml").write_text(CILIUM)
    for name in ("a", "b"):
        (tmp_path / f"np-{name}.yaml").write_text(NODEPOOL.format(name=name))
    inputs = [InputFile(str(p), str(p)) for p in sorted(tmp_path.glob("*.yaml"))]
    config = make_config()
    cache_dir = tmp_path / "cache"
    cold = _findings(check(inputs, config, cache=Cache.for_run(config, cache_dir)))
    assert {c for c, *_ in cold} >= {"KPL301"}  # a run-stage finding, with a fix: positions were asked for

    # One NodePool changes: the cross-file rules run again, over the other file's cached documents.
    changed = tmp_path / "np-b.yaml"
    changed.write_text(NODEPOOL.format(name="b") + "# touched\n")
    composed = []
    real = fastload._compose
    monkeypatch.setattr(fastload, "_compose", lambda text: composed.append(text) or real(text))
    again = _findings(check(inputs, config, cache=Cache.for_run(config, cache_dir)))
    assert again == cold
    unchanged = (tmp_path / "np-a.yaml").read_text()
    assert composed and all(text != unchanged for text in composed)  # parsed: the changed file, never np-a's
    monkeypatch.undo()
    assert again == _findings(check(inputs, config))  # and the same as without a cache
