"""karplint.userdata.nodeadm: decoding, flags, merging, registration (offsets relative to the text)."""

from __future__ import annotations

from karplint.userdata import nodeadm
from karplint.userdata.kubelet import Taint

HEAD = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"


def kinds(docs):
    return [(i.kind, i.severity) for d in docs for i in d.issues]


def test_clean_nodeconfig_has_no_issues():
    docs = nodeadm.decode_nodeconfigs(HEAD + "spec:\n  kubelet:\n    config:\n      maxPods: 10\n    flags: [--v=2]\n")
    assert kinds(docs) == [] and not docs[0].fatal
    assert docs[0].flag_texts == ["--v=2"]


def test_unknown_fields_are_warnings_with_suggestions():
    text = HEAD + "spec:\n  kubelet:\n    flag: [--v=2]\n    extraArgs: x\n  clusterr: {}\n"
    docs = nodeadm.decode_nodeconfigs(text)
    msgs = [i.message for i in docs[0].issues]
    assert all(i.kind == "unknown-field" and i.severity == "warning" for i in docs[0].issues)
    assert "did you mean `flags`" in msgs[0] and "did you mean `flags`" in msgs[1]
    assert "did you mean `cluster`" in msgs[2]
    assert not docs[0].fatal  # nodeadm ignores them
    i = docs[0].issues[0]
    assert text[i.start:i.end] == "flag"


def test_flags_as_string_is_fatal_and_located():
    text = HEAD + "spec:\n  kubelet:\n    flags: --max-pods=3\n"
    (doc,) = nodeadm.decode_nodeconfigs(text, base=100)
    (issue,) = doc.issues
    assert issue.kind == "flags-not-list" and doc.fatal
    assert text[issue.start - 100:issue.end - 100] == "--max-pods=3"


def test_type_errors_are_fatal():
    text = HEAD + "spec:\n  cluster:\n    name: 3\n    enableOutpost: 'yes'\n    certificateAuthority: not-base64!\n"
    (doc,) = nodeadm.decode_nodeconfigs(text)
    assert [i.kind for i in doc.issues] == ["type", "type", "type"] and doc.fatal


def test_dynamic_values_are_not_type_checked():
    (doc,) = nodeadm.decode_nodeconfigs(HEAD + "spec:\n  cluster:\n    certificateAuthority: ${CA}\n")
    assert doc.issues == []


def test_yaml_error_and_wrong_kind():
    (doc,) = nodeadm.decode_nodeconfigs("apiVersion: [\n")
    assert doc.fatal and doc.issues[0].kind == "yaml"
    (doc,) = nodeadm.decode_nodeconfigs("apiVersion: node.eks.aws/v1alpha1\nkind: Config\n")
    assert doc.fatal and doc.issues[0].kind == "type-meta"


def test_flag_item_with_newline_loses_the_rest():
    text = HEAD + "spec:\n  kubelet:\n    flags:\n      - |\n        --v=2\n        --max-pods=3\n      - --foo=1\n"
    (doc,) = nodeadm.decode_nodeconfigs(text)
    (issue,) = doc.issues
    assert issue.kind == "flag-newline" and "'--max-pods=3'" in issue.message and "1 later flag" in issue.message
    assert doc.flags[0].effective == "--v=2" and doc.flags[0].lost == "--max-pods=3\n"
    # the kubelet argv stops at the newline: later items never arrive
    assert [w for w, _, _ in nodeadm.kubelet_argv([doc])] == ["--v=2"]


def test_systemd_resplits_flag_items():
    (doc,) = nodeadm.decode_nodeconfigs(HEAD + "spec:\n  kubelet:\n    flags: ['--node-labels \"a=b\"']\n")
    assert [w for w, _, _ in nodeadm.kubelet_argv([doc])] == ["--node-labels", "a=b"]
    assert [(u.name, u.value) for u in nodeadm.user_flags([doc])] == [("node-labels", "a=b")]


def test_register_with_taints_items_are_checked():
    text = HEAD + ("spec:\n  kubelet:\n    config:\n      registerWithTaints:\n"
                   "        - {key: a, effect: NoSchedule}\n        - {key: a, effect: NoSchedule}\n"
                   "        - {key: b}\n        - {key: c, effect: nope}\n")
    (doc,) = nodeadm.decode_nodeconfigs(text)
    assert [i.kind for i in doc.issues] == ["taint-invalid"] * 3
    assert "duplicated" in doc.issues[0].message or "repeats" in doc.issues[0].message
    assert "API server" in doc.issues[1].message
    assert "nope" in doc.issues[2].message


def test_merge_appends_flags_and_merges_config_keywise():
    a = {"spec": {"cluster": {"name": "a", "cidr": "1"}, "kubelet": {"config": {"maxPods": 1, "x": {"p": 1}},
                                                                    "flags": ["--a"]}}}
    b = {"spec": {"cluster": {"name": "b"}, "kubelet": {"config": {"maxPods": 2, "x": {"q": 2}}, "flags": ["--b"]}}}
    m = nodeadm.merge_nodeconfigs([a, b])
    assert m["spec"]["cluster"] == {"name": "b", "cidr": "1"}
    assert m["spec"]["kubelet"]["config"] == {"maxPods": 2, "x": {"p": 1, "q": 2}}
    assert m["spec"]["kubelet"]["flags"] == ["--a", "--b"]


def test_registration_flag_beats_karpenters_config():
    (doc,) = nodeadm.decode_nodeconfigs(HEAD + "spec:\n  kubelet:\n    flags:\n      - --register-with-taints=a=b:NoSchedule\n")
    karpenter = nodeadm.karpenter_nodeconfig(nodeadm.KarpenterNodeConfigOptions(
        taints=[Taint("karpenter.sh/unregistered", "", "NoExecute")]))
    reg = nodeadm.registration([doc], karpenter)
    assert reg.source == "flags" and [str(t) for t in reg.taints] == ["a=b:NoSchedule"]
    assert not nodeadm.has_unregistered_taint(reg.taints)
    (plain,) = nodeadm.decode_nodeconfigs(HEAD + "spec:\n  kubelet:\n    config:\n      registerWithTaints: []\n")
    reg = nodeadm.registration([plain], karpenter)
    assert reg.source == "config" and nodeadm.has_unregistered_taint(reg.taints)


def test_registration_reports_the_kubelets_error():
    (doc,) = nodeadm.decode_nodeconfigs(HEAD + "spec:\n  kubelet:\n    flags: ['--register-with-taints=a:Bad']\n")
    reg = nodeadm.registration([doc])
    assert reg.taints is None and reg.source == "error"
    assert reg.error.startswith('failed to parse kubelet flag: invalid argument "a:Bad"')


def test_karpenter_nodeconfig_yaml_quoting():
    cfg = nodeadm.karpenter_nodeconfig(nodeadm.KarpenterNodeConfigOptions(
        "c", "https://e", "Q0E=", "10.0.0.0/16", {"clusterDNS": ["10.0.0.10"], "maxPods": 110}, [], {"k": "v"}))
    text = nodeadm.karpenter_nodeconfig_yaml(cfg)
    assert "  - 10.0.0.10\n" in text and '- --node-labels="k=v"' in text
    assert nodeadm.dump_go_yaml({"a": "yes", "b": "1.5", "c": "x: y", "d": ""}) == (
        "a: 'yes'\nb: '1.5'\nc: 'x: y'\nd: ''\n")


def test_unregistered_taint_insertion_keeps_indentation():
    text = HEAD + "spec:\n  kubelet:\n    config:\n      registerWithTaints:\n        - key: a\n          effect: NoSchedule\n"
    (doc,) = nodeadm.decode_nodeconfigs(text)
    at, insertion = nodeadm.unregistered_taint_insertion(text, doc)
    fixed = text[:at] + insertion + text[at:]
    (again,) = nodeadm.decode_nodeconfigs(fixed)
    assert again.get(("spec", "kubelet", "config", "registerWithTaints"))[0] == {
        "key": "karpenter.sh/unregistered", "effect": "NoExecute"}
    assert nodeadm.unregistered_taint_insertion(fixed, again) is None
    flow = HEAD + "spec:\n  kubelet:\n    config:\n      registerWithTaints: [{key: a, effect: NoSchedule}]\n"
    (fdoc,) = nodeadm.decode_nodeconfigs(flow)
    assert nodeadm.unregistered_taint_insertion(flow, fdoc) is None


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("apiVersion:kind NodeConfig\n-[]{}'\"|>#flags config registerWithTaints"
                                              " node.eks.aws/v1alpha1 spec kubelet cluster key effect 123")),
               max_size=160))
def test_decode_never_raises(text):
    docs = nodeadm.decode_nodeconfigs(HEAD + text, base=5)
    for d in docs:
        for i in d.issues:
            assert 5 <= i.start <= i.end <= 5 + len(HEAD + text) + 1
    nodeadm.registration(docs)
    nodeadm.user_flags(docs)
