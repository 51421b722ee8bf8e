"""karplint.diff.markdown.render_markdown: the impact document as GitHub Markdown (the action's job summary and
pull-request comment, `karplint diff -f markdown`): layout, escaping of everything the repository wrote, bound."""

from __future__ import annotations

import re

from karplint.diff.markdown import has_impact, render_markdown, text

NO_CHANGE = {"schema_version": 1, "base": {"label": "origin/main (merge base 1a2b3c4)", "commit": "1" * 40,
                                           "release": "1.14.1"},
             "head": {"label": "working tree", "commit": None, "release": "1.14.1"}, "nodes_assumed": None,
             "nodepools": [], "nodeclasses": [], "problems": [],
             "summary": ["Merging this changes no NodePool or EC2NodeClass."]}


def _pool(name="general", **extra):
    pool = {"name": name, "cluster": None, "status": "changed", "file": "k8s/nodepools.yaml", "line": 3,
            "nodeclass": "default", "changes": [{"path": "spec.template.metadata.labels.team", "before": None,
                                                 "after": "web", "line": 9}],
            "drift": {"verdict": "all", "summary": "every node is replaced",
                      "reasons": [{"object": f"NodePool/{name}", "field": "spec.template.metadata.labels",
                                   "drifts": "all", "why": "labels are part of the NodePool drift hash",
                                   "source": "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go@abc1234#L10"}],
                      "not_drifting": [{"object": f"NodePool/{name}", "field": "spec.weight", "drifts": "none",
                                        "why": "weight is hash:\"ignore\"", "source": None}]},
            "rollout": {"reason": "Drifted", "nodes": 10, "budgets": [0], "never": False,
                        "pace": "10% of nodes at a time (1 of 10)", "windows": "Mon-Fri 09:00-17:00 UTC",
                        "unlimited_minutes": 0, "blocked_minutes": 0, "summary": "10% at a time, weekdays only"},
            "capacity": None, "behaviour": []}
    pool.update(extra)
    return pool


def test_empty_impact_is_the_headline_and_the_sides():
    assert render_markdown(NO_CHANGE) == (
        "## karplint diff\n\n**Merging this changes no NodePool or EC2NodeClass.**\n\n"
        "Base: origin/main \\(merge base 1a2b3c4\\) (Karpenter 1.14.1); head: working tree (Karpenter 1.14.1).\n")
    assert not has_impact(NO_CHANGE)


def test_headline_in_bold_then_a_section_per_nodepool_and_nodeclass():
    doc = {**NO_CHANGE, "nodes_assumed": 10, "nodepools": [_pool()],
           "nodeclasses": [{"name": "default", "cluster": None, "status": "changed", "file": "k8s/nc.yaml",
                            "line": 1, "changes": [{"path": "spec.tags.team", "before": "a", "after": "b",
                                                    "line": 7}],
                            "used_by": ["general", "gpu"],
                            "reasons": [{"object": "EC2NodeClass/default", "field": "spec.tags", "drifts": "all",
                                         "why": "tags are part of the EC2NodeClass drift hash", "source": None}]}],
           "summary": ["Merging this replaces every node of NodePool general, 10% at a time, weekdays only.",
                       "EC2NodeClass default changes tags."]}
    out = render_markdown(doc)
    assert out == "\n".join([
        "## karplint diff", "",
        "**Merging this replaces every node of NodePool general, 10% at a time, weekdays only.**", "",
        "- EC2NodeClass default changes tags.", "",
        "Base: origin/main \\(merge base 1a2b3c4\\) (Karpenter 1.14.1); head: working tree (Karpenter 1.14.1); "
        "10 nodes per NodePool assumed.", "",
        "### NodePool general", "",
        "changed (k8s/nodepools.yaml\\:3); EC2NodeClass default", "",
        "- **Drift: all**: every node is replaced",
        "  - spec.template.metadata.labels: labels are part of the NodePool drift hash (source: "
        "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go\\@abc1234\\#L10)",
        "- Not drifting:",
        "  - spec.weight: weight is hash\\:\"ignore\"",
        "- **Rollout**: 10% at a time, weekdays only",
        "  - pace 10% of nodes at a time \\(1 of 10\\); windows Mon-Fri 09\\:00-17\\:00 UTC; assuming 10 nodes; "
        "budgets 0",
        "- Changed fields (1):",
        "  - spec.template.metadata.labels.team: (none) → \"web\"", "",
        "### EC2NodeClass default", "",
        "changed (k8s/nc.yaml\\:1); used by NodePools general, gpu", "",
        "- **Drifts** the nodes of the pools using it:",
        "  - spec.tags: tags are part of the EC2NodeClass drift hash",
        "- Changed fields (1):",
        "  - spec.tags.team: \"a\" → \"b\"", ""])
    assert has_impact(doc)


def test_a_budget_of_zero_nodes_says_the_change_never_rolls_out():
    pool = _pool(rollout={"reason": "Drifted", "nodes": None, "budgets": [0], "never": True, "pace": "none",
                          "windows": "never", "summary": "never"})
    out = render_markdown({**NO_CHANGE, "nodepools": [pool]})
    assert ("- **Rollout**: never\\: a budget of 0 nodes for Drifted is always active, the change does not roll "
            "out\n") in out


INJECTIONS = ["<img src=x onerror=alert(1)>", "a|b", "`code`", "@octocat", "#1", "<!-- hidden -->",
              "[link](https://evil.example)", "**bold**", "line\nbreak\n# heading", "&amp;", "$x$", ":+1:"]


def test_repository_text_is_escaped_everywhere():
    """A NodePool name, a path, a value, a problem: each stays literal text (no HTML, link, mention, cell,
    emphasis, heading)."""
    for evil in INJECTIONS:
        pool = _pool(name=evil, file=evil, nodeclass=evil, cluster=evil,
                     changes=[{"path": evil, "before": evil, "after": {"k": evil}, "line": 1}],
                     behaviour=[{"field": evil, "before": evil, "after": evil, "meaning": evil, "source": evil}],
                     capacity={"summary": evil, "gained": [evil], "lost": [evil], "gained_count": 1,
                               "lost_count": 1, "limits": {"before": {"cpu": evil}, "after": None},
                               "workloads": {"unschedulable": [{"workload": evil, "file": evil, "line": 2,
                                                                "why": evil}], "schedulable": []}})
        pool["drift"]["reasons"][0].update(field=evil, why=evil, source=evil)
        doc = {**NO_CHANGE, "base": {"label": evil, "release": evil}, "nodepools": [pool],
               "nodeclasses": [{"name": evil, "status": "changed", "file": evil, "used_by": [evil],
                                "reasons": [{"field": evil, "drifts": "all", "why": evil}], "changes": []}],
               "problems": [evil], "summary": [evil, evil]}
        out = render_markdown(doc)
        assert "<" not in out and ">" not in out.replace("→", "")
        for line in out.splitlines():
            # every backtick, pipe, bracket, @, # from the repository is backslashed; headings are ours only
            assert not re.search(r"(?<!\\)[`|\[\]@]", line), (evil, line)
            assert not line.startswith("#") or line.startswith(("## karplint diff", "### NodePool ",
                                                                 "### EC2NodeClass ", "### Problems"))
        assert "&amp;amp;" in out or evil != "&amp;"
    assert text("a\nb|c") == "a b\\|c"


def test_bounded_by_limit_with_a_line_saying_what_was_left_out():
    pools = [_pool(name=f"pool-{i:04d}") for i in range(400)]
    full = render_markdown({**NO_CHANGE, "nodepools": pools}, limit=10**9)
    out = render_markdown({**NO_CHANGE, "nodepools": pools}, limit=5000)
    assert len(out) <= 5000
    kept = out.rsplit("\n…", 1)[0]
    assert full.startswith(kept)
    left = len(full.splitlines()) - len(kept.splitlines())
    assert out.endswith(f"\n… {left:,} more lines ({len(full) - len(kept):,} "
                        "characters) left out to stay within 5,000 characters: `karplint diff` prints the "
                        "whole impact.\n")
    # the default is a comment's limit (65,536 characters on GitHub)
    assert len(render_markdown({**NO_CHANGE, "nodepools": pools})) <= 65000


def test_one_huge_value_stays_bounded():
    huge = "x" * 200_000
    out = render_markdown({**NO_CHANGE, "nodepools": [_pool(name=huge, changes=[{"path": huge, "before": huge,
                                                                               "after": [huge] * 50}])],
                           "summary": [huge]}, limit=10**9)
    assert len(out) < 10_000
