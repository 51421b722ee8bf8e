import pytest

from karplint.userdata.shell import (
    bootstrap_calls, kubelet_config_writes, kubelet_restarts, nodeadm_calls, parse_script, unquote,
)


@pytest.mark.parametrize("raw,value", [
    ("""--kubelet-extra-args='--register-with-taints="a:NoSchedule"'""",
     '--kubelet-extra-args=--register-with-taints="a:NoSchedule"'),  # bashlex drops the inner quotes here
    ('"a"\'b\'"c"', "abc"),
    ("$'a\\tb'", "a\tb"),
    ("$'\\x41\\101\\u00e9'", "AAé"),
    ('"a\\$b\\"c\\\\d\\e"', 'a$b"c\\d\\e'),
    ("a\\ b", "a b"),
    ("a\\\nb", "ab"),
    ('"a\\\nb"', "ab"),
    ("a\r", "a\r"),
    ("'$HOME'", "$HOME"),
    ('"a$"', "a$"),
])
def test_quote_removal(raw, value):
    u = unquote(raw)
    assert u.value == value
    assert not u.dynamic


def test_offsets_point_at_source_characters():
    raw = """x='a"b'"c\\"d"e"""
    u = unquote(raw, base=100)
    assert u.value == 'x=a"bc"de'
    assert all(raw[o - 100] == ch for o, ch in zip(u.offsets, u.value))


def test_dynamic_words():
    for raw in ('"$X"', "${X}", "`date`", '"$(hostname)"', "$1", "a${X:-y}"):
        assert unquote(raw).dynamic, raw
    assert unquote("$X").splits and not unquote('"$X"').splits


def test_variables_resolved_from_earlier_assignments():
    s = parse_script('TAINTS="a:NoSchedule"\nB=/etc/eks/bootstrap.sh\n'
                     '$B c --kubelet-extra-args "--register-with-taints=${TAINTS}"\n')
    (cmd, idx), = bootstrap_calls(s)
    w = cmd.words[idx + 3]
    assert w.value == "--register-with-taints=a:NoSchedule" and not w.dynamic and w.variables == ("TAINTS",)


def test_conditional_and_later_assignments_stay_dynamic():
    s = parse_script('if x; then T=a; fi\n/etc/eks/bootstrap.sh c --kubelet-extra-args "$T"\nU=b\n'
                     'true && V=c\n/etc/eks/bootstrap.sh c --kubelet-extra-args "$U$V"\n')
    (c1, i1), (c2, i2) = bootstrap_calls(s)
    assert c1.words[i1 + 3].dynamic
    assert c2.words[i2 + 3].dynamic and c2.words[i2 + 3].unknown == ("$V",)


def test_heredoc_bodies_are_not_commands():
    s = parse_script("cat <<'EOF' > /x\n/etc/eks/bootstrap.sh no\nEOF\ncat <<-EOT\n\t/etc/eks/bootstrap.sh no\n\tEOT\n"
                     "/etc/eks/bootstrap.sh yes\n")
    assert [c.words[i + 1].value for c, i in bootstrap_calls(s)] == ["yes"]
    assert s.parser == "line-scan" and "here-document" in s.parse_error


@pytest.mark.parametrize("script", [
    "[[ -f /x ]] && /etc/eks/bootstrap.sh c\n",
    "case $x in\n a) /etc/eks/bootstrap.sh c ;;\nesac\n",
    "x=$((1+2))\n/etc/eks/bootstrap.sh c\n",
    "arr=(a b)\n/etc/eks/bootstrap.sh c\n",
    "for ((i=0;i<3;i++)); do :; done\n/etc/eks/bootstrap.sh c\n",
    "sudo -E /etc/eks/bootstrap.sh c\n",
    "exec /etc/eks/bootstrap.sh c\n",
    "bash -x /etc/eks/bootstrap.sh c\n",
    ". /etc/eks/bootstrap.sh c\n",
    "sed -i s/a/b/ /etc/eks/bootstrap.sh\nchmod +x /etc/eks/bootstrap.sh\n/etc/eks/bootstrap.sh c\n",
    "f() {\n  /etc/eks/bootstrap.sh c\n}\nf\n",
    "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n/etc/eks/bootstrap.sh c\n",
])
def test_bootstrap_found_in_constructs_bashlex_cannot_parse(script):
    s = parse_script(script)
    calls = bootstrap_calls(s)
    assert len(calls) == 1, script
    cmd, idx = calls[0]
    assert cmd.words[idx + 1].value == "c"


def test_bashlex_success_and_failure_are_reported():
    assert parse_script("echo hi\n").parser == "bashlex"
    bad = parse_script("case x in a) echo ;; esac\n")
    assert bad.parser == "line-scan" and bad.parse_error


@pytest.mark.parametrize("text", ["", "# only a comment\n", "'unterminated", '"x', "$(", "\\", "<<EOF", "a |",
                                  "(((", "}}}", "esac", "done fi", "${", "`", "$'\\", "\x00", "f() {"])
def test_never_raises(text):
    parse_script(text)


def test_continuation_with_trailing_space_splits_command():
    s = parse_script("/etc/eks/bootstrap.sh c \\ \n  --kubelet-extra-args x\n")
    assert len(s.commands) == 2 and s.commands[1].words[0].value == "--kubelet-extra-args"
    s = parse_script("/etc/eks/bootstrap.sh c \\\n  --kubelet-extra-args x\n")
    assert len(s.commands) == 1


def test_cr_is_a_word_character():
    s = parse_script("/etc/eks/bootstrap.sh c \\\r\n --x\n")
    assert [w.value for w in s.commands[0].words] == ["/etc/eks/bootstrap.sh", "c", "\r"]


def test_kubelet_restarts_and_config_writes():
    s = parse_script("systemctl daemon-reload\nsystemctl restart kubelet\nservice kubelet restart\n"
                     "sed -i s/a/b/ /etc/kubernetes/kubelet/kubelet-config.json\n"
                     "echo \"$(jq .a=1 /etc/kubernetes/kubelet/kubelet-config.json)\" > /etc/kubernetes/kubelet/kubelet-config.json\n"
                     "cat <<EOF > /etc/systemd/system/kubelet.service.d/90-x.conf\n[Service]\nEOF\n"
                     "jq . /etc/kubernetes/kubelet/kubelet-config.json\n"
                     "tee -a /etc/eks/kubelet/environment < /x\nnodeadm init\n")
    assert [c.line for c in kubelet_restarts(s)] == [2, 3]
    assert [(w.cmd.line, w.how) for w in kubelet_config_writes(s)] == [
        (4, "sed -i"), (5, "> redirection"), (6, "> redirection"), (10, "tee")]
    assert len(nodeadm_calls(s)) == 1
