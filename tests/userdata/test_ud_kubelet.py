import pytest

from karplint.userdata import kubelet as kl
from karplint.userdata.kubelet import parse_kubelet_args, parse_node_labels, parse_taints, validate_node_labels


def kinds(value):
    return [(e.kind, e.start, e.end) for e in parse_taints(value)[1]]


def test_valid_lists():
    taints, errors = parse_taints("karpenter.sh/unregistered:NoExecute,dedicated=gpu:NoSchedule,a=:PreferNoSchedule")
    assert errors == []
    assert [(t.key, t.value, t.effect) for t in taints] == [
        ("karpenter.sh/unregistered", "", "NoExecute"), ("dedicated", "gpu", "NoSchedule"),
        ("a", "", "PreferNoSchedule")]
    assert parse_taints("") == ([], [])


@pytest.mark.parametrize("value,expected", [
    ("a:NoSchedule,", [(kl.EMPTY_SPEC, 13, 13)]),
    ("a:NoSchedule,,b:NoSchedule", [(kl.EMPTY_SPEC, 13, 13)]),
    ("a:NoSchedule, b:NoExecute", [(kl.LEADING_SPACE, 13, 25)]),
    ("a:noschedule", [(kl.BAD_EFFECT, 2, 12)]),
    ("a", [(kl.NO_EFFECT, 0, 1)]),
    ("a=b=c:NoSchedule", [(kl.BAD_SPEC, 0, 16)]),
    ("a:b:NoSchedule", [(kl.BAD_SPEC, 0, 14)]),
    ("Example.COM/a:NoSchedule", [(kl.BAD_KEY, 0, 24)]),
    ("a/b/c:NoSchedule", [(kl.BAD_KEY, 0, 16)]),
    ("k" * 64 + ":NoSchedule", [(kl.BAD_KEY, 0, 75)]),
    ("a=" + "v" * 64 + ":NoSchedule", [(kl.BAD_VALUE, 0, 77)]),
    ('"a:NoSchedule"', [(kl.QUOTES, 3, 14)]),
    ("a=$V:NoSchedule", [(kl.DOLLAR, 0, 15)]),
    ("a:NoSchedule-", [(kl.REMOVAL, 0, 13)]),
    ("a:NoSchedule,a=x:NoSchedule", [(kl.DUPLICATE, 13, 27)]),
    ("a:NoSchedule,a:NoExecute", []),
])
def test_taint_errors(value, expected):
    assert kinds(value) == expected


def test_messages_are_kubelets():
    errors = parse_taints("a:noschedule")[1]
    assert errors[0].message == "invalid taint effect: noschedule, unsupported taint effect"
    assert parse_taints("a")[1][0].message == "invalid taint spec: a"
    dup = parse_taints("a:NoSchedule,a:NoSchedule")[1][0]
    assert dup.message.startswith("duplicated taints with the same key and effect")
    assert kl.kubelet_flag_error("--register-with-taints", "a", "x") == \
        'failed to parse kubelet flag: invalid argument "a" for "--register-with-taints" flag: x'
    assert parse_taints("a:NoSchedule-")[1][0].fatal is False


def test_validate_taint_config_path():
    assert kl.validate_taint("karpenter.sh/unregistered", "", "NoExecute") == []
    assert kl.validate_taint("a", "", "") == []  # empty effect passes kubelet (API server rejects it later)
    assert kl.validate_taint("A.B/c", "", "NoSchedule")
    assert kl.validate_taint("a", "", "noexecute") == ["invalid taint effect: noexecute, unsupported taint effect"]
    assert kl.near_miss_effect("noexecute") == "NoExecute"


def test_node_labels():
    labels = parse_node_labels("a=b, c = d ,,flag,node-role.kubernetes.io/x=")
    assert [(l.key, l.value) for l in labels] == [("a", "b"), ("c", "d"), ("flag", ""), ("node-role.kubernetes.io/x", "")]
    errors = validate_node_labels(labels)
    assert [e.kind for e in errors] == ["restricted"]
    ok = parse_node_labels("kubernetes.io/arch=amd64,node.kubernetes.io/role=x,kubelet.kubernetes.io/a=b,"
                           "topology.kubernetes.io/zone=z,x.node.kubernetes.io/y=z")
    assert validate_node_labels(ok) == []
    bad = validate_node_labels(parse_node_labels('"team=a"'))
    assert [e.kind for e in bad] == ["quotes"]
    assert [e.kind for e in validate_node_labels(parse_node_labels("k8s.io/x=y,a=-b"))] == ["restricted", "bad-value"]


def test_pflag():
    f = parse_kubelet_args(["--register_with_taints", "--a:NoSchedule", "--node-labels=a=b", "--fail-swap-on",
                            "x", "--node-labels", "c=d", "-v", "2", "--max-pods=20", "--register-with-taints=b:NoExecute"])
    assert f.value("register-with-taints") == "b:NoExecute"
    assert [u.value for u in f.all("register-with-taints")] == ["--a:NoSchedule", "b:NoExecute"]
    assert [u.value for u in f.all("node-labels")] == ["a=b", "c=d"]
    assert f.value("fail-swap-on") is None and f.last("fail-swap-on") is not None
    assert f.positionals == [4]
    assert f.value("v") == "2" and f.value("max-pods") == "20"
    use = f.last("register-with-taints")
    assert (use.index, use.value_index, use.value_offset) == (10, 10, len("--register-with-taints="))
    assert parse_kubelet_args(["--max-pods"]).missing_value == [0]
    assert parse_kubelet_args(["--", "--x"]).positionals == [1]
