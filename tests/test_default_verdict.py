"""What a default run fails on (README "Exit codes"): opinionated findings (info: KPL705 no limits, KPL706 alias
@latest, ...) are shown and never fail a run at the default `fail-on = warning`; `--fail-on info` makes them count.
Subprocess tests: the exit code is what CI sees."""

from __future__ import annotations

from karplint.testing import need_shared, run_cli

MINIMAL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
"""


def test_a_minimal_nodepool_without_limits_passes_by_default(tmp_path):
    (tmp_path / "np.yaml").write_text(MINIMAL)
    default = run_cli("check", ".", "--no-cache", cwd=tmp_path)
    assert default.returncode == 0, default.stdout
    assert "KPL705 [info]" in default.stdout and "1 info" in default.stdout
    strict = run_cli("check", ".", "--no-cache", "--fail-on", "info", cwd=tmp_path)
    assert strict.returncode == 1


def test_upstream_v1_examples_do_not_fail_on_opinions():
    """Karpenter's own v1 examples: KPL705 (no limits) fired on most of them and failed the run; it is info now, so
    what fails a default run are their real mistakes (reviewed: a nodeClassRef.group with a version, Custom userData
    written for the wrong AMI or with `--kubelet-extra-args=`)."""
    shared = need_shared()
    proc = run_cli("check", str(shared / "karpenter" / "examples" / "v1"), "--no-cache", "-f", "concise", "-q")
    lines = proc.stdout.splitlines()
    failing = [ln for ln in lines if "[error]" in ln or "[warning]" in ln]
    assert proc.returncode == (1 if failing else 0)
    assert sum("KPL705 [info]" in ln for ln in lines) >= 10
    assert not [ln for ln in failing if " KPL705 " in ln or " KPL706 " in ln]
