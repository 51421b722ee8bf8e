"""Kubelet flags the author wrote that silently never reach the kubelet on AL2 (KPL219-KPL221), and the ways bash
exports KUBELET_EXTRA_ARGS to bootstrap.sh; checked against the real bootstrap.sh in the sandbox where available."""

from __future__ import annotations

import pytest

from karplint.testing import codes, lint
from karplint.userdata.model import analyze

from . import sandbox, ud_generator
from .ud_helpers import nodeclass

H = "/etc/eks/bootstrap.sh c --b64-cluster-ca Y2VydA== --apiserver-endpoint https://x"
U = "karpenter.sh/unregistered:NoExecute"


def ud_findings(text: str):
    return [f for f in lint({"t.yaml": text}) if "KPL200" <= f.code <= "KPL229"]


def col(line: str, needle: str) -> int:
    return 5 + line.index(needle)  # the script is indented by 4 in `nodeclass`


def test_kpl219_variable_never_assigned_expands_to_nothing():
    line = f'{H} --kubelet-extra-args "--node-labels=a=b --register-with-taints=$TAINTS"'
    found = ud_findings(nodeclass(userdata=f"#!/bin/bash\n{line}"))
    # KPL206: the registration taint is not registered either (the empty value registers none)
    assert codes(found) == [("KPL206", 12, col(line, "--register")), ("KPL219", 12, col(line, "$TAINTS"))]
    f = found[1]
    assert f.severity == "warning"
    assert f.message.splitlines() == [
        "`TAINTS` is never assigned in this script: bash expands it to nothing",
        "help: assign `TAINTS` before the bootstrap.sh call, or write the value in place",
        "note: bootstrap.sh gets --kubelet-extra-args `--node-labels=a=b --register-with-taints=`",
        "note: cloud-init runs userData in an environment that does not set it"]


@pytest.mark.parametrize("script", [
    f'TAINTS={U}\n{H} --kubelet-extra-args "--register-with-taints=$TAINTS"',  # assigned
    f'source /etc/profile.d/taints.sh\n{H} --kubelet-extra-args "--register-with-taints=$TAINTS"',  # may assign
    f'read -r TAINTS < /etc/taints\n{H} --kubelet-extra-args "--register-with-taints=$TAINTS"',
    f'{H} --kubelet-extra-args --register-with-taints=$TAINTS',  # unquoted: may vanish or split
    f'{H} --kubelet-extra-args "--register-with-taints=${{TAINTS:-{U}}}"',  # a default
    # the cluster name is a hole too: a template something fills in before the script runs
    f'/etc/eks/bootstrap.sh $CLUSTER --kubelet-extra-args "--register-with-taints=$TAINTS"',
])
def test_kpl219_says_nothing_when_the_variable_may_be_set(script):
    assert "KPL219" not in [f.code for f in ud_findings(nodeclass(userdata=f"#!/bin/bash\n{script}"))]


def test_kpl219_not_in_a_templated_manifest():
    """`role: ${NODE_ROLE}` says the file is filled in (envsubst) before it is applied: `$TAINTS` may be too."""
    text = nodeclass(userdata=f'#!/bin/bash\n{H} --kubelet-extra-args "--register-with-taints=$TAINTS"')
    text = text.replace("role: KarpenterNodeRole-c", "role: ${NODE_ROLE}")
    assert [f.code for f in ud_findings(text)] == ["KPL200", "KPL200"]


@pytest.mark.parametrize("delimiter,expected", [
    ("EOF", ["KPL200", "KPL200"]),  # the deploying shell expands `$TAINTS` (assigned there) before kubectl sees it
    ("'EOF'", ["KPL206", "KPL219"]),  # a quoted heredoc is passed as written: `$TAINTS` is empty on the node
])
def test_kpl219_in_a_shell_heredoc(delimiter, expected):
    manifest = nodeclass(userdata=f'#!/bin/bash\n{H} --kubelet-extra-args "--register-with-taints=$TAINTS"')
    deploy = f"#!/bin/bash\nTAINTS={U}\ncat <<{delimiter} | kubectl apply -f -\n{manifest}EOF\n"
    assert [f.code for f in lint({"deploy.sh": deploy}) if f.code.startswith("KPL2")] == expected


def test_kpl220_kubelet_extra_args_not_exported():
    script = f"#!/bin/bash\nKUBELET_EXTRA_ARGS='--register-with-taints={U} --node-labels=a=b'\n{H}"
    found = ud_findings(nodeclass(userdata=script))
    assert codes(found) == [("KPL220", 12, 5), ("KPL206", 13, 5)]
    assert found[0].severity == "error"
    assert found[0].message.splitlines()[:3] == [
        "KUBELET_EXTRA_ARGS is not exported: bootstrap.sh never sees it",
        "help: write `export KUBELET_EXTRA_ARGS=...`, or pass the value with `--kubelet-extra-args`",
        f"note: the kubelet starts without `--register-with-taints={U} --node-labels=a=b`"]


@pytest.mark.parametrize("script", [
    f"KUBELET_EXTRA_ARGS='--register-with-taints={U}'\nexport KUBELET_EXTRA_ARGS\n{H}",
    f"export KUBELET_EXTRA_ARGS\nKUBELET_EXTRA_ARGS='--register-with-taints={U}'\n{H}",
    f"declare -x KUBELET_EXTRA_ARGS='--register-with-taints={U}'\n{H}",
    f"set -a\nKUBELET_EXTRA_ARGS='--register-with-taints={U}'\n{H}",
    f"export KUBELET_EXTRA_ARGS='--register-with-taints={U}'\n{H}",
])
def test_exported_kubelet_extra_args_reach_bootstrap_sh(script):
    """bootstrap.sh@0ab84280#L220 reads `${KUBELET_EXTRA_ARGS:-}` from its environment: every way bash exports it."""
    text = nodeclass(userdata=f"#!/bin/bash\n{script}")
    assert ud_findings(text) == []
    (ba,) = analyze(_resource(text)).bootstraps
    assert ba.extra_args.value == f"--register-with-taints={U}" and ba.taints and ba.taints[0].key == U.split(":")[0]


def test_kpl220_silent_when_passed_on_otherwise_or_exported_too_late():
    passed = f"#!/bin/bash\nKUBELET_EXTRA_ARGS='--register-with-taints={U}'\n{H} --kubelet-extra-args \"$KUBELET_EXTRA_ARGS\""
    assert ud_findings(nodeclass(userdata=passed)) == []
    late = f"#!/bin/bash\nKUBELET_EXTRA_ARGS='--register-with-taints={U}'\n{H}\nexport KUBELET_EXTRA_ARGS"
    assert [f.code for f in ud_findings(nodeclass(userdata=late))] == ["KPL220", "KPL206"]


def test_kpl221_single_quote_cuts_the_rest_of_the_line():
    line = f"{H} --kubelet-extra-args \"--node-labels=a=b' --register-with-taints={U}\""
    found = ud_findings(nodeclass(userdata=f"#!/bin/bash\n{line}"))
    assert codes(found) == [("KPL206", 12, 5), ("KPL221", 12, col(line, "' --register"))]
    assert found[1].message.splitlines()[:3] == [
        "a single quote ends KUBELET_EXTRA_ARGS on AL2: the rest of the value is dropped",
        "help: use double quotes inside the value (systemd removes them), or none",
        f"note: `--register-with-taints={U}` never reaches the kubelet"]
    (ba,) = analyze(_resource(nodeclass(userdata=f"#!/bin/bash\n{line}"))).bootstraps
    assert [w.value for w in ba.kubelet_argv] == ["--node-labels=a=b"]


def test_kpl221_not_when_systemd_drops_everything():
    """A quote followed by text assigns nothing at all: KPL203 reports that, once."""
    line = f"{H} --kubelet-extra-args \"--node-labels='a=b' --register-with-taints={U}\""
    assert [f.code for f in ud_findings(nodeclass(userdata=f"#!/bin/bash\n{line}"))] == ["KPL206", "KPL203"]


def _resource(text: str):
    from karplint.model import as_resource
    from karplint.readers.loader import decode, load

    docs, _ = load(decode("t.yaml", text.encode()))
    return as_resource(docs[0])


SOURCE = sandbox.find_bootstrap()
REASON = sandbox.sandbox_unavailable_reason() or (None if SOURCE else "the AL2 bootstrap.sh is not available")
INTENT = [c for c in ud_generator.generate(7 * 6, seed=4) if c.klass == "intent"]


@pytest.mark.slow
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
@pytest.mark.parametrize("case", INTENT, ids=[f"intent-{i}" for i in range(len(INTENT))])
def test_intent_agrees_with_bootstrap_sh(case):
    """The real bootstrap.sh under bash: karplint predicts its drop-in and reports every intended flag that the
    kubelet does not get (systemd 219's split of that drop-in)."""
    assert ud_generator.compare(case, sandbox.run(case.userdata, SOURCE)) is None, case.userdata


def test_thousands_of_bootstrap_calls_cost_one_pass_over_the_script():
    """The environment of a script (assignments, exports, `set -a`) is computed once, not per bootstrap.sh call:
    2,600 calls after one unexported KUBELET_EXTRA_ARGS took 11.7 s when each call rescanned the script."""
    import time

    script = ("#!/bin/bash\nKUBELET_EXTRA_ARGS=--v=2\n" + "/etc/eks/bootstrap.sh c\n" * 2600)[:60000]
    t = time.process_time()
    found = ud_findings(nodeclass(userdata=script))
    assert time.process_time() - t < 5
    assert [f.code for f in found].count("KPL220") == 1
