"""The report a person reads (ruff's shape): a short headline per finding, the code frame, `= help:` and `= note:`
lines, a blank line between findings; `concise`, `--statistics` and `-q`."""

from __future__ import annotations

import json

from karplint.findings import split_message
from karplint.testing import run_cli

# KPL215 (userData script aborts) speaks in the new shape: a headline, then help and note lines.
ABORTS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: c
spec:
  amiFamily: AL2
  role: r
  amiSelectorTerms: [{alias: al2@latest}]
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
  userData: |
    #!/bin/bash
    set -u
    echo "$NEVER_SET"
    /etc/eks/bootstrap.sh c
"""

OLD = "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\nspec: {}\n"
PINNED = ("--karpenter-version", "1.14.1")  # KPL801 on OLD (unpinned: KPL803, info)


def test_split_message():
    assert split_message("one line") == ("one line", (), ())
    assert split_message("head\nhelp: do this\nnote: because\nnote: since 1.0") == (
        "head", ("do this",), ("because", "since 1.0"))


def test_text_shows_help_and_note_lines_and_a_blank_line_after_each_finding(tmp_path):
    (tmp_path / "nc.yaml").write_text(ABORTS)
    (tmp_path / "old.yaml").write_text(OLD)
    proc = run_cli("check", ".", "--no-cache", "--select", "KPL215,KPL801", *PINNED, cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("nc.yaml:") and "KPL215" in ln)
    assert "\n" not in lines[head] and "help:" not in lines[head]
    after = lines[head + 1:]
    end = after.index("")  # the blank line that ends this finding
    assert any(ln.startswith("  = help: ") for ln in after[:end])
    assert any(ln.startswith("  = note: ") for ln in after[:end])
    assert any(ln.startswith("old.yaml:1:13: KPL801") for ln in after[end + 1:])
    report = json.loads(run_cli("check", ".", "--no-cache", "--select", "KPL215", "-f", "json", cwd=tmp_path).stdout)
    f = report["findings"][0]
    assert "\n" not in f["message"] and f["help"] and f["notes"]


def test_concise_statistics_and_quiet(tmp_path):
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "old2.yaml").write_text(OLD.replace("old", "older"))
    concise = run_cli("check", ".", "--no-cache", "--select", "KPL801", *PINNED, "-f", "concise", cwd=tmp_path)
    assert concise.returncode == 1
    assert concise.stdout.splitlines()[0] == (
        "old.yaml:1:13: KPL801 [error] karpenter.sh/v1beta1 NodePool is not served by Karpenter 1.14.1")
    assert concise.stdout.splitlines()[1].startswith("old2.yaml:1:13: KPL801 [error] ")
    assert concise.stdout.splitlines()[-1].startswith("Found 2 findings")
    quiet = run_cli("check", ".", "--no-cache", "--select", "KPL801", *PINNED, "-f", "concise", "-q", cwd=tmp_path)
    assert len(quiet.stdout.splitlines()) == 2 and "Found" not in quiet.stdout
    quiet_text = run_cli("check", ".", "--no-cache", "--select", "KPL801", *PINNED, "-q", cwd=tmp_path)
    assert "Found" not in quiet_text.stdout and "KPL801" in quiet_text.stdout and quiet_text.returncode == 1
    stats = run_cli("check", ".", "--no-cache", "--select", "KPL801,KPL102", *PINNED, "--statistics", cwd=tmp_path)
    assert stats.returncode == 1
    assert stats.stdout.splitlines()[0] == "2\tKPL801\t    removed-api-version"


# Rules whose headline quotes text karplint does not write (the CRD's own CEL messages).
VERBATIM_HEADLINES = {"KPL130"}


def test_every_rule_speaks_in_the_short_shape():
    """Headlines are short (the why and the fix go to help/note lines), name the targeted release one way
    ("Karpenter X", never "karpenter-version X" or "vX.Y" beside it) and never repeat in a help or note line."""
    import re
    import statistics

    from karplint.testing import documented_findings

    findings = documented_findings()  # (each rule fires at least once on the bad examples of its documentation)
    heads = [f.parts[0] for f in findings]
    assert statistics.median(len(h) for h in heads) < 75
    long = sorted({(f.code, f.parts[0]) for f in findings
                   if len(f.parts[0]) > 100 and f.code not in VERBATIM_HEADLINES})
    assert long == [], "headlines over 100 characters: move the why to a note and the fix to a help line"
    for f in findings:
        head, helps, notes = f.parts
        assert "; did you mean" not in head and "did you mean" not in head, (f.code, head)
        assert not re.search(r"karpenter-version \d", f.message), (f.code, f.message)
        assert head not in helps + notes, (f.code, head)


def test_upstream_examples_headlines_are_short():
    from karplint.testing import need_shared

    shared = need_shared()
    report = json.loads(run_cli("check", str(shared / "karpenter" / "examples" / "v1"), "examples", "--no-cache",
                                "-f", "json", "--exit-zero").stdout)
    heads = [f["message"] for f in report["findings"]]
    assert heads and max(len(h) for h in heads) < 100
