"""KPL216-KPL218: kubelet flag names, value types and versions, from the generated flag table."""

from __future__ import annotations

import pytest

from .ud_helpers import fixture_text, nodeclass

from karplint.testing import codes, lint
from karplint.userdata import kubelet_flags as kf
from karplint.userdata.kubelet import parse_kubelet_args

FLAG_CODES = ("KPL216", "KPL217", "KPL218")


def flag_findings(text: str, **kw):
    return [f for f in lint({"t.yaml": text}, **kw) if f.code in FLAG_CODES]


def at(text: str, f) -> str:
    return text[f.span.offset:f.span.end_offset]


def test_fixture_exact_positions_without_cluster_version():
    text = fixture_text("kubelet_flag_table.yaml")
    found = flag_findings(text)
    assert codes(found) == [("KPL216", 17, 113), ("KPL217", 17, 151), ("KPL217", 17, 174), ("KPL218", 17, 176),
                            ("KPL217", 38, 13), ("KPL216", 39, 13), ("KPL218", 40, 13)]
    assert at(text, found[0]) == "--maxpods"
    assert "did you mean `--max-pods`?" in found[0].message
    assert at(text, found[1]) == "gpu=1" and 'cannot reserve "gpu" resource' in found[1].message
    assert at(text, found[2]) == "5" and 'time: missing unit in duration "5"' in found[2].message
    assert at(text, found[3]) == "--container-runtime"
    assert found[3].severity == "warning" and "1.27-1.34" in found[3].message
    assert "expect string<string" in found[4].message
    assert "unknown shorthand flag: 'm' in -max-pods=30" in found[5].message
    assert found[6].severity == "warning" and "1.31-1.34" in found[6].message


def test_cluster_version_makes_removals_errors_or_silent():
    text = fixture_text("kubelet_flag_table.yaml")
    new = flag_findings(text, config={"cluster": {"kubernetes-version": "1.31"}})
    removed = [f for f in new if f.code == "KPL218"]
    assert [(f.line, f.severity) for f in removed] == [(17, "error"), (40, "error")]
    old = flag_findings(text, config={"cluster": {"kubernetes-version": "1.26"}})
    assert [f for f in old if f.code == "KPL218"] == []


def test_kubelet_exit_reaches_the_other_userdata_rules_and_render():
    text = nodeclass(userdata="#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args "
                              "'--register-with-taints=karpenter.sh/unregistered:NoExecute --max-pods=20.5'")
    (f,) = flag_findings(text)
    assert f.code == "KPL217" and at(text, f) == "20.5"
    assert 'strconv.ParseInt: parsing "20.5": invalid syntax' in f.message


@pytest.mark.parametrize("argv", [
    ["--max-pods=110", "--node-labels=a=b", "--register-with-taints=a=b:NoSchedule", "--v=2"],
    ["--kube-reserved=cpu=100m,memory=1Gi,ephemeral-storage=1Gi,pid=100", "--eviction-hard=memory.available<5%"],
    ["--feature-gates=A=true,B=false", "--sync-frequency=1m30s", "--node-ip=10.0.0.1", "--cluster-dns=10.100.0.10"],
    ["--max-pods", "0x10", "--fail-swap-on=false", "--pod-max-pids=-1", "--image-gc-high-threshold=85"],
    ["--cpu-manager-policy-options=full-pcpus-only=true", "--manifest-url-header=a:b,c:d", "--healthz-bind-address="],
])
def test_valid_argv_has_no_problems(argv):
    assert kf.problems(parse_kubelet_args(argv), argv) == []


@pytest.mark.parametrize("kind,value,error", [
    ("int32", "20.5", 'strconv.ParseInt: parsing "20.5": invalid syntax'),
    ("int32", "", 'strconv.ParseInt: parsing "": invalid syntax'),
    ("int32", "-", 'strconv.ParseInt: parsing "-": invalid syntax'),
    ("uint64", "-1", 'strconv.ParseUint: parsing "-1": invalid syntax'),
    ("int32", "3000000000", 'strconv.ParseInt: parsing "3000000000": value out of range'),
    ("bool", "yes", 'strconv.ParseBool: parsing "yes": invalid syntax'),
    ("duration", "5", 'time: missing unit in duration "5"'),
    ("duration", "5d", 'time: invalid duration "5d"'),
    ("map-string-string", "cpu", "malformed pair, expect string=string"),
    ("map-langle", "memory.available=1Gi", "malformed pair, expect string<string"),
    ("ip", "10.0.0", '"10.0.0" is not a valid IP address'),
    ("string-slice", 'a,b"c', 'parse error on line 1, column 4: bare " in non-quoted-field'),
])
def test_value_errors_are_pflags(kind, value, error):
    assert kf.value_error(kind, value) == error


@pytest.mark.parametrize("kind,value", [("int32", "1_000"), ("int64", "-5"), ("duration", "0"), ("duration", "1.5h"),
                                        ("bool", "F"), ("map-string-string", ""), ("quantity", "2Mi")])
def test_values_pflag_accepts(kind, value):
    assert kf.value_error(kind, value) is None


def test_availability_and_suggestions():
    assert kf.unknown_everywhere("maxpods") and kf.unknown_everywhere("network-plugin")
    assert not kf.unknown_everywhere("container-runtime")  # 1.25 and 1.26 still have it
    assert kf.availability("container-runtime", "1.26").known_everywhere
    assert kf.availability("config-dir", "1.27").missing_in == ("1.27",)
    assert kf.availability("pod-infra-container-image", "1.35").why == "removed in Kubernetes 1.35"
    assert kf.suggest("register-with-taint") == "register-with-taints"
    assert kf.suggest("kube_reserved".replace("_", "-")) == "kube-reserved"
    assert kf.parse_minor("v1.31.2") == "1.31" and kf.parse_minor("latest") is None


def test_unknown_flag_as_last_word_is_unknown_not_missing_a_value():
    argv = ["--max-pods=3", "--maxpods"]
    (p,) = kf.problems(parse_kubelet_args(argv), argv)
    assert (p.kind, p.message, p.word_index) == (kf.UNKNOWN, "unknown flag: --maxpods", 1)


def test_bool_flags_from_the_table_stand_alone():
    flags = parse_kubelet_args(["--seccomp-default", "--max-pods", "5"])
    assert [(u.name, u.value) for u in flags.uses] == [("seccomp-default", None), ("max-pods", "5")]


def test_problems_never_raise_on_arbitrary_argv():
    from hypothesis import given, settings, strategies as st

    word = st.text(alphabet=st.sampled_from(list("-=,:<.0123456789abcxyzmpKMGi_ \"'µ")), max_size=12)
    names = st.sampled_from(["--max-pods", "--kube-reserved", "--sync-frequency", "--feature-gates", "--node-ip",
                             "--eviction-hard", "--tls-cipher-suites", "--v", "-v", "--maxpods", "-m"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.one_of(word, st.builds(lambda n, v: f"{n}={v}", names, word)), max_size=6))
    def check(argv):
        kf.problems(parse_kubelet_args(argv), argv)

    check()


def test_render_marks_nodes_whose_kubelet_refuses_its_flags():
    from karplint.userdata.render import pairs, render_node
    from .ud_nodes_helpers import model_of

    text = fixture_text("kubelet_flag_table.yaml")
    nodes = {nc.name: render_node(nc, np) for nc, np in pairs(model_of(text))}
    custom, al2023 = nodes["custom-flags"], nodes["al2023-flags"]
    assert "--maxpods=20" in custom.kubelet_argv and custom.taints is None
    assert any("unknown flag: --maxpods" in n and "never joins" in n for n in custom.notes)
    assert "--eviction-hard=memory.available=100Mi" in al2023.kubelet_argv
    assert any("unknown shorthand flag" in n and "never joins" in n for n in al2023.notes)
