"""karplint's AL2 userData model against the real amazon-eks-ami bootstrap.sh run under real bash (sandbox.py).

bootstrap.sh is not part of this repository: it is read from the shared material beside the checkout (as in CI),
or from KARPLINT_EKS_AMI_BOOTSTRAP; the tests skip only when neither has it or the sandbox cannot run. The full
generated set runs with `python scripts/userdata_agreement.py`; here a bounded sample per class.
"""

from __future__ import annotations

import pytest

from . import sandbox, ud_generator

SOURCE = sandbox.find_bootstrap()
REASON = sandbox.sandbox_unavailable_reason() or (
    None if SOURCE else "amazon-eks-ami's AL2 bootstrap.sh is not available: set KARPLINT_EKS_AMI_BOOTSTRAP to "
                        "templates/al2/runtime/bootstrap.sh of awslabs/amazon-eks-ami@0ab84280")
needs_sandbox = pytest.mark.skipif(REASON is not None, reason=REASON or "")

SAMPLE = ud_generator.generate(4 * len(ud_generator.GENERATORS), seed=15)  # bounded: 4 per class


@pytest.mark.slow
@needs_sandbox
@pytest.mark.parametrize("case", SAMPLE, ids=[f"{c.klass}-{i}" for i, c in enumerate(SAMPLE)])
def test_model_agrees_with_bootstrap_sh(case):
    assert ud_generator.compare(case, sandbox.run(case.userdata, SOURCE)) is None, case.userdata


@needs_sandbox
def test_sandbox_captures_the_drop_in():
    ud = (f"#!/bin/bash\n{ud_generator.HEAD} --kubelet-extra-args "
          "'--register-with-taints=\"karpenter.sh/unregistered:NoExecute\" --max-pods=20'\n")
    out = sandbox.run(ud, SOURCE)
    assert out.node_joins and out.bootstrap_status == [0]
    assert out.extra_args_value() == '--register-with-taints="karpenter.sh/unregistered:NoExecute" --max-pods=20'
    bad = sandbox.run(f"#!/bin/bash\n{ud_generator.HEAD} --ip-family ipv5\n", SOURCE)
    assert not bad.node_joins and bad.bootstrap_status == [1] and bad.extra_args_dropin is None


def test_generator_is_seeded_and_covers_every_class():
    a, b = ud_generator.generate(40, seed=3), ud_generator.generate(40, seed=3)
    assert [c.userdata for c in a] == [c.userdata for c in b]
    assert {c.klass for c in a} == set(ud_generator.GENERATORS)


def test_rooted_paths_stay_in_the_sandbox(tmp_path):
    text = 'cat > /etc/x <<EOF\nEOF\n"/var/lib/k" ${HOME}/etc /usr/bin/etc'
    assert sandbox.rooted(text, tmp_path) == (f'cat > {tmp_path}/etc/x <<EOF\nEOF\n"{tmp_path}/var/lib/k" '
                                              '${HOME}/etc /usr/bin/etc')


@pytest.mark.slow
@needs_sandbox
@pytest.mark.parametrize("case", SAMPLE[:12], ids=[f"{c.klass}-{i}" for i, c in enumerate(SAMPLE[:12])])
def test_render_shows_the_sandbox_kubelet_argv(case):
    """`karplint render` (Custom): the kubelet argv after the AMI's fixed flags is what systemd 219 (the port,
    checked against its C code) makes of the drop-in the real bootstrap.sh wrote; a node that never gets a kubelet
    is said to never join."""
    from karplint.userdata import systemd219 as sd
    from karplint.userdata.render import BASE_ARGV, render_node

    out = sandbox.run(case.userdata, SOURCE)
    node = render_node(ud_generator.custom_nodeclass(case.userdata))
    if not out.node_joins:
        assert any("never joins" in n for n in node.notes), node.notes
        return
    value = out.extra_args_value() or ""
    text = "[Service]\nEnvironment='KUBELET_EXTRA_ARGS=" + value + "'\n"
    env = sd.parse_service_environment(text, list(range(len(text))))
    expected = []
    if "KUBELET_EXTRA_ARGS" in env.values:
        assigned = env.values["KUBELET_EXTRA_ARGS"][0]
        rc, words, _ = sd.strv_split_quoted(assigned)
        expected = ["".join(assigned[k] for k in w) for w in words] if rc >= 0 else None
    if expected is None or not expected:
        return  # the kubelet never starts / no extra args: covered by the rules' tests
    assert node.kubelet_argv[len(BASE_ARGV["AL2"]):] == expected
