from karplint.userdata.bootstrap import VALUE_OPTIONS, parse_bootstrap
from karplint.userdata.shell import bootstrap_calls, parse_script


def call_of(script_text):
    script = parse_script(script_text)
    (cmd, idx), = bootstrap_calls(script)
    return parse_bootstrap(cmd, idx, script)


def test_option_table_is_bootstraps():
    assert len(VALUE_OPTIONS) == 19
    assert "--kubelet-extra-args" in VALUE_OPTIONS and "--local-disks" in VALUE_OPTIONS


def test_space_form():
    c = call_of("/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--node-labels=a=b' --b64-cluster-ca Y2E=")
    assert c.cluster_name.value == "my-cluster"
    assert c.kubelet_extra_args.value == "--node-labels=a=b"
    assert c.equals_forms == [] and c.positionals[1:] == []


def test_equals_form_is_positional_or_cluster_name():
    c = call_of("/etc/eks/bootstrap.sh c --kubelet-extra-args='--register-with-taints=\"x:NoSchedule\"'")
    assert c.kubelet_extra_args is None
    (eq,) = c.equals_forms
    assert eq.option == "--kubelet-extra-args" and not eq.is_cluster_name
    assert eq.word.value == '--kubelet-extra-args=--register-with-taints="x:NoSchedule"'  # inner " kept by bash
    first = call_of("/etc/eks/bootstrap.sh --apiserver-endpoint=https://x my-cluster")
    assert first.equals_forms[0].is_cluster_name and first.cluster_name.value == "--apiserver-endpoint=https://x"


def test_values_taken_blindly_and_abort():
    c = call_of("/etc/eks/bootstrap.sh c --b64-cluster-ca --apiserver-endpoint https://x")
    use = c.last("--b64-cluster-ca")
    assert use.value.value == "--apiserver-endpoint" and use.looks_like_option
    assert [w.value for w in c.positionals] == ["c", "https://x"]
    assert call_of("/etc/eks/bootstrap.sh c --kubelet-extra-args").aborts_at.value == "--kubelet-extra-args"
    assert call_of("/etc/eks/bootstrap.sh -h c").help is not None


def test_repeated_option_last_wins():
    c = call_of("/etc/eks/bootstrap.sh c --kubelet-extra-args a --kubelet-extra-args b")
    assert c.kubelet_extra_args.value == "b"


def test_exported_environment_pickup():
    c = call_of("export KUBELET_EXTRA_ARGS='--node-labels=a=b'\n/etc/eks/bootstrap.sh c\n")
    assert c.kubelet_extra_args.value == "--node-labels=a=b"
    c = call_of("KUBELET_EXTRA_ARGS='--max-pods=3' /etc/eks/bootstrap.sh c\n")
    assert c.kubelet_extra_args.value == "--max-pods=3"
    # a plain (non-exported) shell variable is not seen by bootstrap.sh
    c = call_of("KUBELET_EXTRA_ARGS='--max-pods=3'\n/etc/eks/bootstrap.sh c\n")
    assert c.kubelet_extra_args is None


def test_equals_form_with_a_dynamic_value_is_still_an_equals_form():
    c = call_of('/etc/eks/bootstrap.sh c --kubelet-extra-args="--node-labels=${LABELS}"')
    (eq,) = c.equals_forms
    assert eq.option == "--kubelet-extra-args" and eq.word.dynamic
    quoted = call_of('/etc/eks/bootstrap.sh c "--kubelet-extra-args=--max-pods=$N"')
    assert [e.option for e in quoted.equals_forms] == ["--kubelet-extra-args"]
