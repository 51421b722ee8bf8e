"""karplint.userdata.bottlerocket: TOML errors mapped to lines, node-taints, Karpenter's keys, rendering."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from karplint.userdata import bottlerocket as br


def kinds(text, merges=True):
    return [(i.kind, i.severity) for i in br.check(br.parse_settings(text), karpenter_merges=merges)]


def test_syntax_error_points_at_its_line_and_column():
    text = "[settings.kubernetes]\nkube-api-qps = 30\nnode.cilium.io/x = [\"a\"]\n"
    s = br.parse_settings(text, base=7)
    assert s.data is None and s.error.kind == "toml"
    assert s.error.start - 7 == text.index("/x")
    assert "line 3 of the userData" in s.error.message


def test_key_positions():
    text = '[settings.kubernetes]\n"max-pods" = 3\n[settings.kubernetes.node-taints]\n"a/b" = [":NoSchedule"]\n'
    s = br.parse_settings(text)
    start, end = s.positions[("settings", "kubernetes", "max-pods")]
    assert text[start:end] == '"max-pods"'
    start, end = s.positions[("settings", "kubernetes", "node-taints", "a/b")]
    assert text[start:end] == '"a/b"'
    inline = br.parse_settings('settings.kubernetes = { max-pods = 3, cluster-name = "x" }\n')
    start, end = inline.positions[("settings", "kubernetes", "cluster-name")]
    assert inline.text[start:end] == "cluster-name"


def test_karpenter_replacements_and_unknown_keys():
    text = ('[settings.kubernetes]\ncluster-name = "a"\napi-server = "b"\ncluster-certificate = "c"\nmax-pods = 3\n'
            'cluster-dns-ip = "d"\nstandalone-mode = true\nclustr-domain = "x"\n[x]\ny = 1\n')
    got = kinds(text)
    assert got.count(("replaced", "warning")) == 2  # max-pods, cluster-dns-ip
    assert got.count(("replaced", "info")) == 3  # the cluster's identity: Karpenter writes the same cluster's values
    assert got.count(("unknown", "warning")) == 2 and ("outside-settings", "warning") in got
    msgs = [i.message for i in br.check(br.parse_settings(text), karpenter_merges=True)]
    assert any(m.startswith("Karpenter drops settings.kubernetes.standalone-mode") for m in msgs)
    assert any("did you mean `cluster-domain`" in m for m in msgs)
    assert kinds(text, merges=False) == [("unknown", "warning")]  # Custom: only the typo


def test_types_karpenter_decodes():
    got = kinds('[settings.kubernetes]\nkube-api-qps = "30"\nimage-gc-high-threshold-percent = 85\n'
                'node-labels = { a = 1 }\nseccomp-default = true\n')
    assert got.count(("type", "error")) == 3


def test_node_taints_shapes():
    assert ("taints-shape", "error") in kinds('[[settings.kubernetes.node-taints]]\nkey = "a"\n')
    assert ("taints-shape", "error") in kinds('[settings.kubernetes.node-taints]\n"a" = "b:NoSchedule"\n')
    assert ("taints-shape", "error") not in kinds('[settings.kubernetes.node-taints]\n"a" = "b:NoSchedule"\n',
                                                  merges=False)  # Bottlerocket still accepts the legacy string
    assert ("taints-shape", "error") in kinds('[settings.kubernetes.node-taints]\na.b = [":NoSchedule"]\n')
    assert ("taints-value", "error") in kinds('[settings.kubernetes.node-taints]\n"a" = []\n', merges=False)
    assert ("taints-value", "error") in kinds('[settings.kubernetes.node-taints]\n"a" = ["b=c:NoSchedule"]\n',
                                              merges=False)
    assert ("taints-value", "error") in kinds('[settings.kubernetes.node-taints]\n"A.io/b" = [":NoSchedule"]\n',
                                              merges=False)
    assert ("taints-value", "error") in kinds('[settings.kubernetes.node-taints]\n"a" = [":Nope"]\n', merges=False)
    ok = '[settings.kubernetes.node-taints]\n"dedicated" = ["gpu:NoSchedule"]\n"karpenter.sh/unregistered" = [":NoExecute"]\n'
    assert kinds(ok, merges=False) == []
    assert br.registered_taints(br.parse_settings(ok)) == [
        ("dedicated", "gpu", "NoSchedule"), ("karpenter.sh/unregistered", "", "NoExecute")]


def test_joined_node_taints_like_schnauzer():
    assert br.joined_node_taints({"a": ["b:NoSchedule", ":NoExecute"], "c": [":PreferNoSchedule"]}) == (
        "a=b:NoSchedule,a=:NoExecute,c=:PreferNoSchedule")


def test_render_keeps_other_tables_and_drops_unknown():
    user = br.parse_settings('[settings.kubernetes]\nfoo = 1\nkube-api-qps = 30\n[settings.ntp]\ntime-servers = ["x"]\n'
                             '[top]\na = 1\n').data
    opts = br.KarpenterBottlerocketOptions("c", "https://e", "Q0E=", "10.0.0.10", 29, {"l": "v"},
                                           [("karpenter.sh/unregistered", "", "NoExecute")])
    text = br.dump_settings_toml(br.karpenter_settings(user, opts))
    assert "foo" not in text and "[top]" not in text and "kube-api-qps = 30" in text
    assert "[settings.ntp]\ntime-servers = ['x']" in text
    assert "'karpenter.sh/unregistered' = [':NoExecute']" in text
    assert br.parse_settings(text).data is not None  # it is TOML again


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list('[]{}=".\'#,:/ \nabc-_\\15settingskubernetesnode-taints')), max_size=200))
def test_arbitrary_text_never_raises(text):
    s = br.parse_settings(text, base=3)
    issues = br.check(s, karpenter_merges=True) + br.check(s, karpenter_merges=False)
    for i in issues:
        assert 3 <= i.start <= i.end <= 3 + len(text) + 1
    br.registered_taints(s)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_arbitrary_unicode_never_raises(text):
    s = br.parse_settings(text)
    br.check(s, karpenter_merges=True)
    br.locate_keys(text)


def test_node_labels():
    text = ('[settings.kubernetes.node-labels]\n"karpenter.sh/nodepool" = "x"\n"node-role.kubernetes.io/gpu" = "true"\n'
            '"team" = "a"\n"topology.kubernetes.io/zone" = "z"\n')
    assert kinds(text) == [("replaced", "warning"), ("labels-value", "error")]
    assert kinds(text, merges=False) == [("labels-value", "error")]
