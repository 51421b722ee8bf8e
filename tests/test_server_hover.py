"""The editor's hover (karplint/server/hover.py): each answer against the command that computes the same thing
(`explain`'s document, `simulate`, `budgets`, `render`), positions in UTF-16 code units, the host file's positions
for embedded YAML, and nothing (never an exception) where there is nothing to say."""

from __future__ import annotations

import json
import re

import pytest

from karplint.docs import rule_doc
from karplint.project import build, configure
from karplint.server import hover as hover_module
from karplint.server.hover import code_point_column, hover_at
from karplint.testing import run_cli

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: windows   # karplint: disable=KPL404
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: win
      requirements:
        - key: kubernetes.io/os
          operator: In
          values: ["windows"]
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["m", "c"]
  limits:
    cpu: "1000"
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    budgets:
      - nodes: "20%"
        reasons: ["Empty", "Drifted"]
      - nodes: "0"
        schedule: "0 9 * * mon-fri"
        duration: 8h
"""

NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: win
spec:
  amiFamily: Windows2022
  amiSelectorTerms:
    - alias: windows2022@latest
  role: KarpenterNodeRole
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
"""

AL2023_CLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: linux
spec:
  amiSelectorTerms:
    - alias: al2023@latest
  role: KarpenterNodeRole
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  userData: |
    apiVersion: node.eks.aws/v1alpha1
    kind: NodeConfig
    spec:
      kubelet:
        config:
          maxPods: 42
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: linux
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: linux}
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["m5"]
        - key: kubernetes.io/arch
          operator: In
          values: ["arm64"]
"""


def _project(root, name):
    """The project of one file of `root` (a marked project: its other files are context), as the server builds it."""
    return build([str(root / name)], configure(None, [str(root / name)]))


def _at(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """(line, character) of `needle` in `text`, LSP style (the text here is ASCII where this is used)."""
    i = text.index(needle) + offset
    line = text.count("\n", 0, i)
    return line, i - (text.rfind("\n", 0, i) + 1)


@pytest.fixture()
def tree(tmp_path):
    (tmp_path / ".karplint.toml").write_text("")  # the project root: the EC2NodeClass file is context
    (tmp_path / "nodepool.yaml").write_text(NODEPOOL)
    (tmp_path / "nodeclass.yaml").write_text(NODECLASS)
    (tmp_path / "linux.yaml").write_text(AL2023_CLASS)
    return tmp_path


def _hover(tree, name, text, needle, offset=0):
    project = _project(tree, name)
    display = project.inputs[0].display
    return hover_at(project, display, text, *_at(text, needle, offset))


def test_rule_code_shows_its_documentation(tree):
    got = _hover(tree, "nodepool.yaml", NODEPOOL, "KPL404", 3)
    doc = rule_doc("KPL404")
    assert got.startswith(f"**KPL404** ({doc.slug})")
    assert doc.summary in got
    assert doc.sections["Why it breaks"] in got and doc.sections["Fix"] in got
    # the rest of the comment is no rule code (the line is the NodePool's name: its simulation); an unknown code
    # has no documentation
    assert _hover(tree, "nodepool.yaml", NODEPOOL, "disable=").startswith("**NodePool `windows`** can launch")
    text = NODEPOOL.replace("KPL404", "KPL999")
    assert _hover(tree, "nodepool.yaml", text, "KPL999", 1).startswith("**NodePool `windows`** can launch")
    text = "# KPL999 KPL404\n" + NODEPOOL
    assert _hover(tree, "nodepool.yaml", text, "KPL999", 1) is None
    assert _hover(tree, "nodepool.yaml", text, "KPL404", 1).startswith("**KPL404**")


def test_nodepool_shows_what_simulate_knows(tree):
    proc = run_cli("simulate", "--output-format", "json", str(tree / "nodepool.yaml"))
    assert proc.returncode == 0, proc.stderr
    pool = json.loads(proc.stdout)["nodepools"][0]
    # the EC2NodeClass of the other file counts: only its Windows AMI family launches `os In [windows]`
    assert pool["instance_types"] > 0 and pool["ami_family"] == "Windows2022"
    for needle in ("kind: NodePool", "name: windows", "operator: In", "nodeClassRef"):
        got = _hover(tree, "nodepool.yaml", NODEPOOL, needle, 2)
        assert f"**NodePool `windows`** can launch **{pool['instance_types']:,}** of the" in got, needle
        assert "| families | " + ", ".join(f"`{f}`" for f in pool["families"][:12]) in got
        assert f"| cpu | `{pool['cpu'][0]}` - `{pool['cpu'][1]}` |" in got
        assert f"| memory | `{pool['memory'][0]}` - `{pool['memory'][1]}` |" in got
        assert "| architectures | " + ", ".join(f"`{a}`" for a in pool["arch"]) + " |" in got
        assert "| capacity types | " + ", ".join(f"`{c}`" for c in pool["capacity_types"]) + " |" in got
        assert "EC2NodeClass `win` (`Windows2022`)" in got
    # fields that do not decide the instance types say nothing
    assert _hover(tree, "nodepool.yaml", NODEPOOL, "cpu: \"1000\"") is None
    assert _hover(tree, "nodepool.yaml", NODEPOOL, "consolidationPolicy") is None


def test_nodepool_that_launches_nothing(tree):
    text = NODEPOOL.replace('values: ["m", "c"]', 'values: ["m", "c"]\n        - key: kubernetes.io/arch\n'
                                                  '          operator: In\n          values: ["arm64"]')
    got = _hover(tree, "nodepool.yaml", text, "kind: NodePool")
    assert "can launch **no** instance type" in got
    # (Windows AMIs run amd64 types only: the node class drops arm64 before `os In [windows]` would)
    assert "emptied by `amiFamily Windows2022 runs on amd64 instance types only`, `kubernetes.io/arch`" in got


def test_budget_shows_its_week_as_budgets_computes_it(tree):
    proc = run_cli("budgets", "--output-format", "json", str(tree / "nodepool.yaml"))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)["nodepools"][0]
    got = _hover(tree, "nodepool.yaml", NODEPOOL, "- nodes: \"0\"")  # on the item's dash
    assert got.startswith('**NodePool `windows`, budgets[1]**: nodes `0`, every reason, for 8h after each '
                          '`0 9 * * mon-fri` (UTC)')
    assert "Active 40h of 168h: Mon 09:00–Mon 17:00, Tue 09:00–Tue 17:00" in got
    for reason, data in report["reasons"].items():
        rows = []
        for s in data["segments"]:
            if rows and rows[-1][2] == s["limit"]:
                rows[-1][1] = s["end"]
            else:
                rows.append([s["start"], s["end"], s["limit"]])
        for start, end, limit in rows:
            assert f"| {start} | {end} | {limit} |" in got, (reason, start)
    # Drifted and Empty share a timeline; Underutilized has its own (the first budget names two reasons)
    assert "**The NodePool's limit for Drifted, Empty**" in got and "**The NodePool's limit for Underutilized**" in got
    first = _hover(tree, "nodepool.yaml", NODEPOOL, "reasons: [\"Empty\"")
    assert first.startswith("**NodePool `windows`, budgets[0]**: nodes `20%`, `Empty`, `Drifted`, always")


def test_userdata_shows_what_render_renders(tree):
    proc = run_cli("render", str(tree / "linux.yaml"), env={"COLUMNS": "300"})
    assert proc.returncode == 0, proc.stderr
    rendered = proc.stdout.split("userData Karpenter renders:\n", 1)[1].split("kubelet argv:", 1)[0]
    body = [line[2:] for line in rendered.rstrip("\n").split("\n")]
    for needle in ("userData: |", "maxPods: 42"):
        got = _hover(tree, "linux.yaml", AL2023_CLASS, needle, 2)
        assert got.startswith("**EC2NodeClass `linux`** (AL2023) with NodePool `linux`: what the node runs")
        assert "```\n" + "\n".join(body) + "\n```" in got
        assert "**registers with taints:** `karpenter.sh/unregistered:NoExecute`" in got
    # the rest of the EC2NodeClass says nothing
    assert _hover(tree, "linux.yaml", AL2023_CLASS, "role: Karpenter") is None


def test_outside_any_object_and_other_kinds(tree):
    text = NODEPOOL + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
    assert _hover(tree, "nodepool.yaml", text, "kind: ConfigMap") is None
    assert _hover(tree, "nodepool.yaml", text, "---") is None
    project = _project(tree, "nodepool.yaml")
    assert hover_at(project, project.inputs[0].display, text, 500, 0) is None  # past the last line
    line = text.split("\n").index("---")
    assert hover_at(project, project.inputs[0].display, text, line, 500) is None  # past the line's end


def test_utf16_positions():
    line = "# 😀😀😀 KPL404"
    assert code_point_column(line, 9) == 7  # `K`: three emoji before it are six UTF-16 units, three code points
    assert code_point_column(line, 6) == 5  # (inside the emoji: the emoji's column)
    assert code_point_column(line, 7) == 5
    assert code_point_column(line, 99) == len(line) + 1


def test_utf16_positions_in_the_buffer(tree):
    project = _project(tree, "nodepool.yaml")
    display = project.inputs[0].display
    text = "# 😀😀😀 KPL404\n" + NODEPOOL
    line = 0
    units = len("# ") + 6 + 1  # the code starts after three emoji (six UTF-16 code units) and a blank
    assert hover_at(project, display, text, line, units + 5).startswith("**KPL404**")  # its last digit
    assert hover_at(project, display, text, line, units + 6) is None  # just past it
    # a flow sequence of budgets: the first item's closing brace, after emoji that code points would miscount
    flow = NODEPOOL.split("    budgets:\n")[0] + \
        '    budgets: [{nodes: "1", reasons: ["😀😀😀😀"]}, {nodes: "0", schedule: "@daily", duration: 1h}]\n'
    line = flow.split("\n").index(flow.rstrip("\n").split("\n")[-1])
    brace = flow.split("\n")[line].index("}")  # code points
    got = hover_at(project, display, flow, line, brace + 4)  # + the four emoji's second units
    assert got is not None and got.startswith("**NodePool `windows`, budgets[0]**")
    assert "nodes `1`" in got
    second = hover_at(project, display, flow, line, brace + 4 + 3)
    assert second.startswith("**NodePool `windows`, budgets[1]**")


def test_unparsable_buffer_and_internal_errors_say_nothing(tree, monkeypatch, capsys):
    project = _project(tree, "nodepool.yaml")
    display = project.inputs[0].display
    broken = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: [\n  spec: : :\n"
    assert hover_at(project, display, broken, 1, 2) is None
    assert hover_at(project, display, "\x00\x01 not yaml", 0, 0) is None

    def boom(*args, **kwargs):
        raise RuntimeError("simulated failure")

    from karplint.server import hover_text

    monkeypatch.setattr(hover_text, "simulation", boom)
    assert hover_at(project, display, NODEPOOL, *_at(NODEPOOL, "kind: NodePool")) is None
    err = capsys.readouterr().err
    assert re.search(r"karplint server: hover on \S*nodepool.yaml:2:1: RuntimeError: simulated failure", err)


def test_embedded_yaml_positions_are_the_host_files(tree):
    # a Terraform heredoc (indented: the reader strips the indentation, the hover maps it back)
    tf = ('resource "kubectl_manifest" "pool" {\n  yaml_body = <<-YAML\n'
          + "".join(f"    {line}\n" for line in NODEPOOL.splitlines()) + "  YAML\n}\n")
    (tree / "pool.tf").write_text(tf)
    got = _hover(tree, "pool.tf", tf, "operator: In")
    assert got is not None and got.startswith("**NodePool `windows`** can launch")
    assert _hover(tree, "pool.tf", tf, "resource") is None
    assert _hover(tree, "pool.tf", tf, "nodes: \"0\"").startswith("**NodePool `windows`, budgets[1]**")
    # columns too: the first budget's closing brace, four columns right of where the extracted YAML has it
    flow = NODEPOOL.split("    budgets:\n")[0] + '    budgets: [{nodes: "1"}, {nodes: "0", schedule: "@daily", duration: 1h}]\n'
    tf = ('resource "kubectl_manifest" "pool" {\n  yaml_body = <<-YAML\n'
          + "".join(f"    {line}\n" for line in flow.splitlines()) + "  YAML\n}\n")
    (tree / "pool.tf").write_text(tf)
    assert _hover(tree, "pool.tf", tf, '"1"}', 3).startswith("**NodePool `windows`, budgets[0]**")
    assert _hover(tree, "pool.tf", tf, '"1"}', 6).startswith("**NodePool `windows`, budgets[1]**")
    # a Markdown block: a documentation example, simulated with its own file as context
    md = "# Pools\n\nText.\n\n```yaml\n" + NODEPOOL + "```\n"
    (tree / "README.md").write_text(md)
    got = _hover(tree, "README.md", md, "kind: NodePool")
    assert got is not None and got.startswith("**NodePool `windows`** can launch")
    assert _hover(tree, "README.md", md, "Text.") is None


def test_the_buffer_not_the_disk_is_read(tree):
    text = NODEPOOL.replace('values: ["m", "c"]', 'values: ["m"]')
    narrow = _hover(tree, "nodepool.yaml", text, "kind: NodePool")
    wide = _hover(tree, "nodepool.yaml", NODEPOOL, "kind: NodePool")
    count = re.compile(r"can launch \*\*([\d,]+)\*\*")
    assert int(count.search(narrow).group(1).replace(",", "")) < int(count.search(wide).group(1).replace(",", ""))
    # another file's change is seen at the next hover of the same project (the cache follows the file's state)
    project = _project(tree, "nodepool.yaml")
    display = project.inputs[0].display
    first = hover_at(project, display, NODEPOOL, *_at(NODEPOOL, "kind: NodePool"))
    assert "can launch **" in first and "can launch **no**" not in first
    (tree / "nodeclass.yaml").write_text(NODECLASS.replace("Windows2022", "AL2023").replace("windows2022", "al2023"))
    got = hover_at(project, display, NODEPOOL, *_at(NODEPOOL, "kind: NodePool"))
    assert "can launch **no** instance type" in got
    assert len(hover_module._CACHE["files"]) == 2  # (the project's other files; the hovered one is the buffer)


def test_untrusted_text_cannot_close_its_block_or_drive_a_terminal(tree):
    # userData holding a fence and an escape sequence; a NodePool name with backticks
    text = AL2023_CLASS.replace("  userData: |\n    apiVersion: node.eks.aws/v1alpha1\n    kind: NodeConfig\n"
                                "    spec:\n      kubelet:\n        config:\n          maxPods: 42\n",
                                '  userData: "#!/bin/bash\\n````\\necho \\e[31m red\\n"\n')
    got = _hover(tree, "linux.yaml", text, "userData")
    assert "\x1b" not in got and "echo \\x1b[31m red" in got
    block = got.split("**userData Karpenter renders:**\n\n", 1)[1]
    assert block.startswith("`````\n") and "\n`````" in block  # a fence longer than the userData's own
    pool = NODEPOOL.replace("name: windows", 'name: "a`b|c"')
    got = _hover(tree, "nodepool.yaml", pool, "kind: NodePool")
    assert got.startswith("**NodePool ``a`b|c``** can launch")


def test_zones_only_from_the_requirements(tree):
    assert "zones" not in _hover(tree, "nodepool.yaml", NODEPOOL, "kind: NodePool")  # (the account's: unknown)
    text = NODEPOOL.replace('values: ["m", "c"]', 'values: ["m", "c"]\n        - key: topology.kubernetes.io/zone\n'
                                                  '          operator: In\n          values: ["eu-west-1b", "eu-west-1a"]')
    got = _hover(tree, "nodepool.yaml", text, "kind: NodePool")
    assert "| zones | `eu-west-1a`, `eu-west-1b` (from its requirements) |" in got
