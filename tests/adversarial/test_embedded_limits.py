"""Hostile host files (Terraform, shell, Markdown) for the embedded-YAML readers: thousands of unclosed heredocs
(a closing-line search per opener would be quadratic), and thousands of tiny Kubernetes blocks deep into a long
file (each region is parsed from a text whose earlier lines are empty). Each ends within 10 s and 1 GB, the
second in a KPL004 finding. Through the real command line, one worker."""

from __future__ import annotations

import time

import pytest

from test_limits import run

from karplint.testing import lint

HOSTILE = {
    "unclosed.tf": "apiVersion kind\n" + "x = <<EOF\n" * 200_000,
    "unclosed.md": "apiVersion\n```bash\n" + "cat <<-EOF | kubectl apply -f -\n" * 100_000 + "```\n",
    "fences.md": "apiVersion\n" + "```\n" * 200_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_unclosed_heredocs_are_linear(tmp_path, name):
    (tmp_path / name).write_text(HOSTILE[name])
    code, report, _, elapsed = run(name, cwd=tmp_path)
    assert elapsed < 10 and code in (0, 1)


def test_many_regions_far_into_a_file_end_in_kpl004(tmp_path):
    text = "x\n" * 100_000 + "```yaml\napiVersion: v1\nkind: ConfigMap\n```\n" * 20_000
    (tmp_path / "many.md").write_text(text)
    code, report, _, elapsed = run("many.md", cwd=tmp_path)
    assert elapsed < 10
    assert [f["code"] for f in report["findings"]] == ["KPL004"]
    assert "embedded YAML regions" in report["findings"][0]["message"]


def test_markdown_of_many_list_items_is_bounded():
    # markdown-it-py took ~18 s on this 800 KB file (60 us per list item); past MARKDOWN_IT_MAX_LINES lines the
    # fences are found by a linear line scan, and the block after the list is still read
    text = "- x\n" * 200_000 + "```\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\nspec:\n" \
        "  weight: 500\n```\n"
    start = time.perf_counter()
    found = lint({"README.md": text}, karpenter_version="1.14.1")
    assert time.perf_counter() - start < 10
    assert [(f.code, f.line, f.column) for f in found] == [("KPL106", 200_007, 11)]
