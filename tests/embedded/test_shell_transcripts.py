"""Text that is not YAML though it sits where YAML does, from held-out real repositories: a ```yaml fence holding a
shell transcript (`~$ cat <<EOF | kubectl apply -f -`), a `.yml` file that is a shell snippet, and a documentation
block of other software that does not parse (readers/docblocks.py, readers/reread.py, readers/embedded.py).
Exact code, line and column in the host file; the positive side too: the Karpenter object inside is checked.

The excerpts are short and trimmed; their repositories carry no licence file."""

from __future__ import annotations

from karplint.testing import codes, lint

V1 = {"karpenter_version": "1.14.1"}

# ------------------------------------------------------------------- A: docs blocks of other software, `[...]`

# zeeamd/z-eks-v0 @ 5d26d2f62dee2caaec878b8388299a595b0406da (no licence file),
# openebs/charts/mayastor/charts/loki-stack/charts/grafana/README.md lines 375-387: a vendored Grafana chart README;
# the dashboard JSON is cut with `[...]`. KPL001 at 13:1 (the closing fence) before.
GRAFANA_README = """\
Example dashboard config:

```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: sample-grafana-dashboard
  labels:
     grafana_dashboard: "1"
data:
  k8s-dashboard.json: |-
  [...]
```
"""


def test_docs_block_of_other_software_that_does_not_parse_is_not_reported():
    assert codes(lint({"charts/grafana/README.md": GRAFANA_README}, **V1)) == []


def test_docs_block_of_other_software_broken_beyond_elision_is_not_reported():
    text = GRAFANA_README.replace("  [...]\n", "  [a, b\n")
    assert codes(lint({"README.md": text}, **V1)) == []


def test_docs_block_naming_a_karpenter_api_that_does_not_parse_keeps_kpl001():
    text = GRAFANA_README.replace("apiVersion: v1\nkind: ConfigMap", "apiVersion: karpenter.sh/v1\nkind: NodePool")
    text = text.replace("  [...]\n", "  [a, b\n")
    assert codes(lint({"README.md": text}, **V1)) == [("KPL001", 13, 1)]


NODEPOOL_ELIDED = """\
```yaml
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  [...]
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilised
```
"""


def test_bracketed_elision_in_a_docs_block_is_an_elision():
    # `[...]` was a flow sequence used as a key (KPL001 at 8:3); now the NodePool's typo is found at its line
    assert codes(lint({"README.md": NODEPOOL_ELIDED}, **V1)) == [("KPL101", 9, 26)]


# ------------------------------------------------------------------- B: a ```yaml fence holding a shell transcript

# Simyung/aws-workshops @ d8fbcf47eaab895d3a864aa3e24ba2f8dd8d30fa (no licence file),
# eks/observability/eks-open-source-observability/application-metrics.md lines 99-133, trimmed: a ```yaml fence,
# then a prompt and a heredoc around a Pod. KPL001 at 4:11 before.
WORKSHOP_TRANSCRIPT = """\
Run the load generator:

```yaml
~$ cat <<EOF | kubectl apply -f -
apiVersion: v1
kind: Pod
metadata:
  name: load-generator
  namespace: other
spec:
  containers:
  - name: artillery
    image: artilleryio/artillery:2.0.0-31
    args:
    - "run"
EOF
```
"""

TRANSCRIPT_NODEPOOL = """\
```yaml
{prompt}cat <<EOF | kubectl apply -f -
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
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot"]
  limits:
    cpu: 100
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilised
    consolidateAfter: 1m
EOF
```
"""


def test_yaml_fence_with_prompt_and_heredoc_is_read_as_shell():
    assert codes(lint({"application-metrics.md": WORKSHOP_TRANSCRIPT}, **V1)) == []


def test_yaml_fence_heredoc_nodepool_is_checked_at_its_lines_after_any_prompt():
    for prompt in ("", "$ ", "~$ ", "# ", "ec2-user@ip-10-0-0-1:~/environment$ "):
        text = TRANSCRIPT_NODEPOOL.format(prompt=prompt)
        assert codes(lint({"README.md": text}, **V1)) == [("KPL101", 21, 26)], prompt


def test_yaml_fence_with_an_unclosed_heredoc_stays_yaml():
    text = TRANSCRIPT_NODEPOOL.format(prompt="$ ").replace("EOF\n```", "```")
    assert codes(lint({"README.md": text}, **V1)) == [("KPL001", 3, 11)]


# ------------------------------------------------------------------- C: a shell snippet saved as .yml

# zeeamd/z-eks-v0 @ 5d26d2f62dee2caaec878b8388299a595b0406da (no licence file), samples-v0/karpenter-v0/nodepool.yml
# lines 1-20 and 40-41, trimmed (CRLF line ends, as there): KPL001 at 2:11 before, the NodePool never checked.
SHELL_SNIPPET_YML = "\r\n".join([
    "cat <<EOF | envsubst | kubectl apply -f -",
    "apiVersion: karpenter.sh/v1",
    "kind: NodePool",
    "metadata:",
    "  name: nodepoolv0",
    "spec:",
    "  template:",
    "    spec:",
    "      requirements:",
    "        - key: karpenter.sh/capacity-type",
    "          operator: In",
    '          values: ["spot"]',
    "      nodeClassRef:",
    "        group: karpenter.k8s.aws",
    "        kind: EC2NodeClass",
    "        name: nodeclassv0",
    "      expireAfter: 720h # 30 * 24h = 720h",
    "  limits:",
    "    cpu: 1000",
    "  disruption:",
    "    consolidationPolicy: WhenEmptyOrUnderutilized",
    "    consolidateAfter: 1m",
    "EOF",
    "",
])


def test_shell_snippet_saved_as_yml_is_read_as_shell():
    assert codes(lint({"samples-v0/karpenter-v0/nodepool.yml": SHELL_SNIPPET_YML}, **V1)) == []


def test_shell_snippet_saved_as_yml_nodepool_is_checked_at_its_lines():
    text = SHELL_SNIPPET_YML.replace("WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilised")
    assert codes(lint({"nodepool.yml": text}, **V1)) == [("KPL101", 21, 26)]
    text = "# apply with kubectl\r\n\r\n" + text.replace(
        "cat <<EOF | envsubst | kubectl apply -f -", "kubectl apply -f - <<EOF")
    assert codes(lint({"nodepool.yaml": text}, **V1)) == [("KPL101", 23, 26)]


def test_yaml_file_whose_first_line_is_a_key_stays_yaml():
    # (`<<` in a value is no shell command: the file is YAML, and its syntax error stands)
    text = "script: kubectl apply -f - <<EOF\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a\n"
    assert codes(lint({"job.yml": text}, **V1)) == [("KPL001", 5, 1)]
