"""userData shell rules: exact findings on fixtures, fixes, version gating, upstream examples, corpus."""

from __future__ import annotations

import csv

import pytest

from .ud_helpers import apply_edits, fixture_text, nodeclass

from karplint.testing import codes, lint


def ud_findings(text: str, **kw):
    return [f for f in lint({"t.yaml": text}, **kw) if "KPL200" <= f.code <= "KPL229"]


def at(text: str, f) -> str:
    return text[f.span.offset:f.span.end_offset]


def test_equals_form_and_its_safe_fix():
    text = fixture_text("custom_equals_form.yaml")
    found = ud_findings(text)
    assert codes(found) == [("KPL206", 18, 5), ("KPL201", 18, 38), ("KPL201", 18, 60)]
    assert found[1].severity == "error" and at(text, found[1]) == "--b64-cluster-ca=Y2EK"
    assert [f.fix.safety for f in found if f.code == "KPL201"] == ["safe", "safe"]
    fixed = apply_edits(text, [e for f in found if f.code == "KPL201" for e in f.fix.edits])
    assert "--b64-cluster-ca Y2EK --kubelet-extra-args '--register-with-taints=\"karpenter.sh/unregistered:NoExecute\"'" in fixed
    assert ud_findings(fixed) == []  # the taint now reaches the kubelet: KPL206 is gone too


def test_equals_fix_normalises_inner_single_quotes():
    text = nodeclass(userdata="#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args=\"--node-labels='a=b' "
                              "--register-with-taints=karpenter.sh/unregistered:NoExecute\"")
    (f,) = [f for f in ud_findings(text) if f.code == "KPL201"]
    fixed = apply_edits(text, f.fix.edits)
    assert "--kubelet-extra-args '--node-labels=\"a=b\" --register-with-taints=" in fixed
    assert ud_findings(fixed) == []


def test_no_equals_fix_outside_literal_blocks_or_without_cluster_name():
    quoted = ('apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: a}\nspec:\n  amiFamily: Custom\n'
              '  userData: "#!/bin/bash\\n/etc/eks/bootstrap.sh c --kubelet-extra-args=--max-pods=3\\n"\n')
    (f,) = [f for f in ud_findings(quoted) if f.code == "KPL201"]
    assert f.fix is None and (f.line, f.column) == (6, 13)
    only = nodeclass(userdata="/etc/eks/bootstrap.sh --apiserver-endpoint=https://x")
    (f,) = [f for f in ud_findings(only) if f.code == "KPL201"]
    assert "cluster name" in f.message and f.fix is None


def test_taint_errors_and_fixes():
    text = fixture_text("custom_taints.yaml")
    found = ud_findings(text)
    assert codes(found) == [("KPL204", 14, 87), ("KPL203", 14, 89), ("KPL205", 14, 128)]
    assert at(text, found[0]) == "," and at(text, found[1]) == "dedicated=gpu:NoSchedule"
    assert found[0].fix.description == "remove the space after the comma"
    fixed = apply_edits(text, found[0].fix.edits)
    assert "NoExecute,dedicated=gpu:NoSchedule --node-labels" in fixed
    assert codes(ud_findings(fixed)) == [("KPL205", 14, 127)]


def test_taint_error_classes_and_repeated_flag():
    text = fixture_text("custom_taint_errors.yaml")
    found = ud_findings(text)
    assert codes(found) == [("KPL204", 12, 60), ("KPL204", 12, 142), ("KPL204", 12, 153), ("KPL204", 12, 169)]
    assert [f.severity for f in found] == ["warning", "error", "error", "error"]
    assert "did you mean NoSchedule?" in found[1].message
    assert "removal" in found[2].message
    fixed = apply_edits(text, found[3].fix.edits)
    assert 'gone:NoSchedule-" --register' in fixed


def test_literal_quotes_in_taints_fixed():
    text = nodeclass(userdata="/etc/eks/bootstrap.sh c --kubelet-extra-args "
                              "\"--register-with-taints=karpenter.sh/unregistered:NoExecute,\\\\'a:NoSchedule\\\\'\"")
    found = ud_findings(text)
    # inside bash double quotes \\' is a backslash and a quote; in Environment='...' systemd 219 skips the escaped
    # quote (strcspn_escaped), cunescape turns \' into ', and the ExecStart split removes the quotes: the kubelet
    # gets --register-with-taints=karpenter.sh/unregistered:NoExecute,a:NoSchedule (was a KPL203 false error)
    assert found == []


def test_systemd_219_losses():
    text = fixture_text("custom_systemd.yaml")
    found = ud_findings(text)
    assert codes(found) == [("KPL203", 12, 133), ("KPL203", 25, 119)]
    assert "never starts" in found[0].message and "--node-labels=a=b" in found[1].message


def test_unregistered_taint_versions_and_near_miss():
    text = fixture_text("custom_uninitialized.yaml")
    for version, severity in (("1.0.0", "error"), ("1.2.3", "error"), ("1.3.0", "warning"), ("1.14.1", "warning")):
        (f,) = ud_findings(text, karpenter_version=version)
        assert (f.code, f.line, f.column, f.severity) == ("KPL206", 14, 54, severity)
        assert "did you mean karpenter.sh/unregistered instead of karpenter.sh/uninitialized?" in f.message
        assert f.fix is None  # the taint comes from a variable: no exact offsets to edit
    assert ud_findings(text, karpenter_version="0.37.0") == []


def test_unregistered_fixes():
    near = nodeclass(userdata="/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=a:NoSchedule,"
                              "karpenter.sh/uninitialized:NoSchedule'")
    (f,) = ud_findings(near, karpenter_version="1.1.0")
    assert f.severity == "error" and f.fix.safety == "unsafe"
    fixed = apply_edits(near, f.fix.edits)
    assert "a:NoSchedule,karpenter.sh/unregistered:NoExecute'" in fixed and ud_findings(fixed) == []
    missing = nodeclass(userdata="/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=a:NoSchedule'")
    (f,) = ud_findings(missing)
    assert apply_edits(missing, f.fix.edits).count("a:NoSchedule,karpenter.sh/unregistered:NoExecute'") == 1


def test_mime_problems():
    text = fixture_text("al2_mime.yaml")
    found = ud_findings(text)
    assert codes(found) == [("KPL210", 12, 5), ("KPL210", 28, 5), ("KPL210", 43, 5)]
    assert 'malformed MIME header: missing colon: "--BOUNDARY"' in found[0].message
    assert "not in multipart MIME format" in found[1].message
    assert "never appears" in found[2].message
    custom = nodeclass(userdata='MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n--B\n\necho\n--B--')
    found = ud_findings(custom)
    assert [(f.code, f.severity) for f in found] == [("KPL200", "info"), ("KPL210", "warning")]  # Custom: cloud-init reads it
    unterminated = nodeclass(family_lines="  amiFamily: AL2\n  amiSelectorTerms:\n    - id: ami-1\n",
                             userdata='MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\n'
                                      'Content-Type: text/x-shellscript\n\necho hi')
    (f,) = ud_findings(unterminated)
    assert (f.code, f.line, f.column, f.severity) == ("KPL210", 14, 5, "error") and "unexpected EOF" in f.message


def test_al2_and_al2023_bootstrap_calls():
    al2 = nodeclass(family_lines="  amiSelectorTerms:\n    - alias: al2@latest\n",
                    userdata="#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--max-pods=20 --node-labels=a=b'")
    assert codes(ud_findings(al2)) == [("KPL207", 11, 5), ("KPL208", 11, 51), ("KPL208", 11, 65)]
    text = fixture_text("al2023_shell.yaml")
    assert codes(ud_findings(text)) == [("KPL209", 9, 13)]
    custom_al2023 = nodeclass(family_lines="  amiFamily: Custom\n  amiSelectorTerms:\n    - alias: al2023@latest\n",
                              userdata="#!/bin/bash\n/etc/eks/bootstrap.sh c")
    assert [f.code for f in ud_findings(custom_al2023)] == ["KPL209"]


def test_unparsable_script_is_scanned_and_reported():
    text = fixture_text("custom_unparsable.yaml")
    found = ud_findings(text)
    assert codes(found) == [("KPL200", 10, 13), ("KPL200", 11, 5), ("KPL200", 20, 61), ("KPL211", 22, 5)]
    assert "could not parse" in found[1].message and "$ARCH" in found[2].message


def test_template_expressions():
    text = fixture_text("custom_template.yaml")
    (f,) = ud_findings(text)
    assert ((f.code, f.line, f.column), f.severity) == (("KPL212", 12, 27), "error")  # on the bootstrap.sh line
    assert f.message.splitlines()[0] == "unrendered Terraform interpolation `${module.eks.cluster_name}` in shell userData"
    elsewhere = nodeclass(userdata="#!/bin/bash\necho ${var.x}\n/etc/eks/bootstrap.sh c --kubelet-extra-args "
                                   "'--register-with-taints=karpenter.sh/unregistered:NoExecute'\n")
    (f,) = ud_findings(elsewhere)
    assert ((f.code, f.line, f.column), f.severity) == (("KPL212", 12, 10), "info")  # skips echo, script goes on
    assert [f for f in lint({"templates/nodeclass.yaml": text}) if f.code == "KPL212"] == []


def test_continuation_broken_by_trailing_space():
    text = nodeclass(userdata="/etc/eks/bootstrap.sh c \\ \n  --kubelet-extra-args '--register-with-taints="
                              "karpenter.sh/unregistered:NoExecute'")
    found = ud_findings(text)
    assert [f.code for f in found] == ["KPL206", "KPL202"]
    assert "backslash followed by a space" in found[1].message and (found[1].line, found[1].column) == (12, 7)


def test_kubelet_edits_after_custom_bootstrap():
    text = nodeclass(userdata="/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"
                              "/etc/eks/bootstrap.sh c\njq '.a=1' /etc/kubernetes/kubelet/kubelet-config.json | tee /etc/kubernetes/kubelet/kubelet-config.json")
    found = ud_findings(text)
    assert [(f.code, f.line) for f in found] == [("KPL206", 12), ("KPL211", 12), ("KPL211", 13)]
    assert "second time" in found[1].message and "(tee)" in found[2].message


UPSTREAM_EXPECTED = {
    # file -> findings in the userData category (all judged true, see the report)
    "custom-family.yaml": [("KPL206", 63, 5), ("KPL201", 63, 38), ("KPL210", 65, 5)],
    "custom-family-with-alias.yaml": [("KPL213", 51, 13), ("KPL210", 64, 5)],
    "al2023-custom-userdata.yaml": [("KPL210", 69, 5)],
    # named "al2" but selects al2023@latest: AL2's kubelet-config.json and KUBELET_EXTRA_ARGS are not read on AL2023
    "al2-kubelet-log-query.yaml": [("KPL211", 63, 16), ("KPL211", 69, 93), ("KPL211", 70, 91)],
}


def test_upstream_examples(shared):
    for path in sorted((shared / "karpenter" / "examples" / "v1").glob("*.yaml")):
        found = ud_findings(path.read_text(encoding="utf-8"))
        assert codes(found) == UPSTREAM_EXPECTED.get(path.name, []), path.name
    (f,) = [f for f in ud_findings((shared / "karpenter/examples/v1/custom-family.yaml").read_text()) if f.code == "KPL201"]
    assert "--kubelet-extra-args=--node-labels=foo=bar" in f.message and f.fix is not None


def test_corpus_userdata_files_do_not_crash(shared):
    rows = list(csv.DictReader((shared / "corpus" / "MANIFEST.tsv").open(encoding="utf-8"), delimiter="\t"))
    for row in rows:
        if row["has_userData"] != "y":
            continue
        text = (shared / "corpus" / row["corpus_path"]).read_text(encoding="utf-8", errors="replace")
        found = lint({row["corpus_path"]: text})
        assert not [f for f in found if f.code == "KPL006"], row["corpus_path"]


def test_crlf_file_spans_and_fixes():
    text = nodeclass(userdata="#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args='--register-with-taints="
                              "karpenter.sh/unregistered:NoExecute,'").replace("\n", "\r\n")
    found = ud_findings(text)
    assert codes(found) == [("KPL206", 12, 5), ("KPL201", 12, 29)]
    fixed = apply_edits(text, found[1].fix.edits)
    (f,) = ud_findings(fixed)
    assert (f.code, f.line, f.column, at(fixed, f)) == ("KPL204", 12, 109, ",")
    assert apply_edits(fixed, f.fix.edits).endswith("unregistered:NoExecute'\r\n")


def test_escaped_quotes_reaching_the_kubelet_are_removed_with_their_escapes():
    # '\\"' in single quotes: systemd C-unescapes \\ to \ and then keeps \" as a literal quote
    text = nodeclass(userdata="/etc/eks/bootstrap.sh c --kubelet-extra-args "
                              "'--register-with-taints=\\\\\"karpenter.sh/unregistered:NoExecute\\\\\"'")
    (f,) = ud_findings(text)
    assert f.code == "KPL204" and "literal quote" in f.message
    fixed = apply_edits(text, f.fix.edits)
    assert "'--register-with-taints=karpenter.sh/unregistered:NoExecute'" in fixed
    assert ud_findings(fixed) == []


def test_dropin_overriding_kubelet_extra_args():
    text = fixture_text("al2_dropin.yaml")
    (f,) = ud_findings(text)
    assert (f.code, f.line, f.column, f.severity) == ("KPL214", 13, 5, "error")
    assert at(text, f).startswith('Environment="KUBELET_EXTRA_ARGS=') and "does not expand" in f.message


def test_analysis_summary_properties():
    from karplint.readers.loader import decode, load
    from karplint.model import as_resource
    from karplint.userdata.model import analyze

    text = nodeclass(userdata="/etc/eks/bootstrap.sh c --kubelet-extra-args '--node-labels=\"a=b\" "
                              "--register-with-taints=karpenter.sh/unregistered:NoExecute --node-labels=c=d'")
    docs, _ = load(decode("t.yaml", text.encode()))
    res = as_resource(docs[0])
    a = analyze(res)
    assert analyze(res) is a  # cached
    assert a.family == "Custom" and a.content.kind == "shell"
    assert a.kubelet_argv == ["--node-labels=a=b", "--register-with-taints=karpenter.sh/unregistered:NoExecute",
                              "--node-labels=c=d"]
    taints, part = a.registered_taints
    assert [str(t) for t in taints] == ["karpenter.sh/unregistered:NoExecute"]
    assert [(lab.key, lab.value) for lab in part.node_labels] == [("a", "b"), ("c", "d")]


def test_al2_dynamic_extra_args_still_name_karpenter_flags():
    text = nodeclass(family_lines="  amiSelectorTerms:\n    - alias: al2@latest\n",
                     userdata='MAX_PODS=$(curl -s http://169.254.169.254/x)\n'
                              '/etc/eks/bootstrap.sh c --kubelet-extra-args "--max-pods=$MAX_PODS"')
    found = ud_findings(text)
    assert codes(found) == [("KPL207", 11, 5), ("KPL200", 11, 50), ("KPL208", 11, 50)]
    assert "$MAX_PODS" in found[1].message and "--max-pods" in found[2].message


def test_unregistered_with_the_wrong_effect():
    text = nodeclass(userdata="/etc/eks/bootstrap.sh c --kubelet-extra-args "
                              "'--register-with-taints=karpenter.sh/unregistered:NoSchedule'")
    (f,) = ud_findings(text, karpenter_version="1.2.0")
    assert f.severity == "error" and "did you mean effect NoExecute instead of NoSchedule?" in f.message
    assert "--register-with-taints=karpenter.sh/unregistered:NoExecute'" in apply_edits(text, f.fix.edits)


def test_unregistered_fix_adds_the_flag_to_quoted_extra_args():
    text = nodeclass(userdata="/etc/eks/bootstrap.sh c --kubelet-extra-args '--node-labels=foo=bar'")
    (f,) = ud_findings(text)
    assert f.code == "KPL206" and f.fix.safety == "unsafe"
    fixed = apply_edits(text, f.fix.edits)
    assert "'--node-labels=foo=bar --register-with-taints=karpenter.sh/unregistered:NoExecute'" in fixed
    assert ud_findings(fixed) == []
    unquoted = nodeclass(userdata="/etc/eks/bootstrap.sh c --kubelet-extra-args --node-labels=foo=bar")
    (f,) = ud_findings(unquoted)
    assert f.fix is None  # a space would split the word: no safe place to insert


def test_cloud_config_runcmd_strings_are_shell():
    text = fixture_text("al2_cloud_config.yaml")
    found = ud_findings(text)
    assert codes(found) == [("KPL207", 20, 9), ("KPL201", 20, 42)]
    fixed = apply_edits(text, found[1].fix.edits)
    assert "- /etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--node-labels=team=data'" in fixed
    assert codes(ud_findings(fixed)) == [("KPL207", 20, 9), ("KPL208", 20, 64)]


@pytest.mark.parametrize("args,target,first", [
    ("--container-runtime dockerd", "dockerd", "`--container-runtime dockerd`: bootstrap.sh exits 1"),
    ("--ip-family ipv5", "ipv5", "`--ip-family ipv5`: bootstrap.sh exits 1"),
    ("--ip-family ipv6", "ipv6", "`--ip-family ipv6` without `--service-ipv6-cidr` or `--dns-cluster-ip`"),
    ("--ip-family ipv4 --service-ipv6-cidr fd00::/108", "fd00::/108", "`--service-ipv6-cidr` with `--ip-family ipv4`"),
    ("--enable-local-outpost true", "true", "`--enable-local-outpost true` without `--cluster-id`"),
    ("--b64-cluster-ca Y2VydA", "Y2VydA", "`--b64-cluster-ca` is not base64: bootstrap.sh exits 1"),
])
def test_bootstrap_validation_exits(args, target, first):
    line = ("/etc/eks/bootstrap.sh c --apiserver-endpoint https://x --kubelet-extra-args "
            f"'--register-with-taints=karpenter.sh/unregistered:NoExecute' {args}")
    if "b64" not in args:
        line += " --b64-cluster-ca Y2VydA=="
    text = nodeclass(userdata="#!/bin/bash\n" + line + "\n")
    found = [f for f in ud_findings(text) if f.code == "KPL202"]
    col = 5 + line.index(" " + target) + 1  # 4 spaces of YAML indentation, 1-based
    assert [(f.code, f.line, f.column) for f in found] == [("KPL202", 12, col)]
    assert found[0].message.startswith(first) and "\nhelp: " in found[0].message and "\nnote: " in found[0].message


def test_bootstrap_validation_quiet_cases():
    head = "#!/bin/bash\n/etc/eks/bootstrap.sh c --apiserver-endpoint https://x --kubelet-extra-args " \
           "'--register-with-taints=karpenter.sh/unregistered:NoExecute' "
    for ok in ("--b64-cluster-ca Y2VydA== --container-runtime containerd --ip-family IPv6 --dns-cluster-ip fd00::a",
               "--b64-cluster-ca \"$CA\" --ip-family ipv4"):
        assert ud_findings(nodeclass(userdata=head + ok + "\n")) == []


def test_set_u_abort():
    tail = "/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"
    found = ud_findings(nodeclass(userdata="#!/bin/bash\nset -eu\nT=\"$UNSET\"\n" + tail))
    assert [(f.code, f.line, f.column, f.severity) for f in found] == [("KPL215", 13, 8, "error")]
    assert found[0].message.splitlines()[0] == ("`set -u` is on and `UNSET` is never assigned: bash aborts before "
                                                 "bootstrap.sh runs")
    found = ud_findings(nodeclass(userdata="#!/bin/bash\n" + tail + "set -o nounset\necho $X\n"))
    assert [(f.code, f.line, f.column, f.severity) for f in found] == [("KPL215", 14, 10, "warning")]
    for quiet in ("set -u\nX=1\necho \"$X ${Y:-}\" $HOME\n", "echo $UNSET\nset -u\n"):
        assert ud_findings(nodeclass(userdata="#!/bin/bash\n" + quiet + tail)) == []


@pytest.mark.parametrize("userdata,note", [
    ("#!/bin/bash\n/etc/eks/bootstrap.sh c --ip-family ipv5\n", "bootstrap.sh exits 1"),
    ("#!/bin/bash\nset -u\n/etc/eks/bootstrap.sh \"$C\"\n", "bash never runs this bootstrap.sh call"),
    ("#!/bin/bash\n/etc/eks/bootstrap.sh ${var.c}\n", "bash never runs this bootstrap.sh call"),
])
def test_render_custom_node_that_never_joins(userdata, note):
    from karplint.readers.loader import decode, load
    from karplint.model import as_resource
    from karplint.userdata.render import render_node

    docs, _ = load(decode("t.yaml", nodeclass(userdata=userdata).encode()))
    node = render_node(as_resource(docs[0]))
    assert any(note in n and n.endswith("the node never joins") for n in node.notes), node.notes


def test_render_custom_outpost_and_split_words():
    from karplint.readers.loader import decode, load
    from karplint.model import as_resource
    from karplint.userdata.render import BASE_ARGV, render_node

    ud = ("#!/bin/bash\nARGS='--register-with-taints=karpenter.sh/unregistered:NoExecute --max-pods=20'\n"
          "/etc/eks/bootstrap.sh c --enable-local-outpost true --cluster-id x --kubelet-extra-args \"$ARGS \\\\\n"
          "--v=2\"\n")
    docs, _ = load(decode("t.yaml", nodeclass(userdata=ud).encode()))
    node = render_node(as_resource(docs[0]))
    assert node.kubelet_argv[len(BASE_ARGV["AL2"]):] == [
        "--bootstrap-kubeconfig", "/var/lib/kubelet/bootstrap-kubeconfig",
        "--register-with-taints=karpenter.sh/unregistered:NoExecute", "--max-pods=20", "--v=2"]


AL2023_EDIT_RESTART = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: al2023
spec:
  amiFamily: AL2023
  amiSelectorTerms:
    - alias: al2023@v20240807
  role: KarpenterNodeRole-demo
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  userData: |
    MIME-Version: 1.0
    Content-Type: multipart/mixed; boundary="B"

    --B
    Content-Type: text/x-shellscript

    #!/bin/bash
    sed -i 's/"maxPods": 29/"maxPods": 50/' /etc/kubernetes/kubelet/config.json
    echo '{"maxPods": 50}' > /etc/kubernetes/kubelet/config.json.d/50-mine.conf
    mkdir -p /etc/systemd/system/kubelet.service.d
    cat > /etc/systemd/system/kubelet.service.d/10-pre.conf <<'EOF'
    [Service]
    ExecStartPre=/bin/true
    EOF
    systemctl restart kubelet

    --B--
"""


def test_al2023_shell_part_editing_kubelet_config_and_restarting_it():
    found = [f for f in ud_findings(AL2023_EDIT_RESTART) if f.code == "KPL211"]
    assert codes(found) == [("KPL211", 22, 45), ("KPL211", 23, 28), ("KPL211", 29, 5)]
    assert "nodeadm owns" in found[0].message and "help: put the setting in a NodeConfig" in found[0].message
    assert at(AL2023_EDIT_RESTART, found[2]) == "systemctl restart kubelet"
    # a systemd drop-in that only adds ExecStartPre (no KUBELET_EXTRA_ARGS) is not reported
    assert not any(f.line == 25 for f in found)
