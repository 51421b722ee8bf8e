"""Property tests: karplint's quote removal against real bash, systemd 219 splitting against the facts' rules."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from karplint.userdata.shell import parse_script
from karplint.userdata.systemd import kubelet_extra_args_219, split_exec_219

BASH = shutil.which("bash")

# Characters that are literal when unquoted (no globbing, braces, tilde, comments, history, operators).
UNQUOTED = "abcXYZ019_./:=,-+@%"
ANY = UNQUOTED + " \t'\"\\$`!*?[]{}~#;&|<>()"

unquoted_seg = st.one_of(
    st.text(alphabet=UNQUOTED, min_size=1, max_size=6),
    st.sampled_from(ANY).map(lambda c: "\\" + c),  # backslash-escaped character
    st.just("\\\n"),  # line continuation: vanishes
)
single_seg = st.text(alphabet=ANY.replace("'", "") + "\n", max_size=8).map(lambda t: f"'{t}'")
double_inner = st.one_of(
    st.text(alphabet=UNQUOTED + " \t'!*?[]{}~#;&|<>()\n", min_size=1, max_size=6),
    st.sampled_from(["\\$", '\\"', "\\\\", "\\`", "\\a", "\\n", "\\'", "\\\n"]),
)
double_seg = st.lists(double_inner, max_size=4).map(lambda parts: '"' + "".join(parts) + '"')
ansi_inner = st.one_of(
    st.text(alphabet=UNQUOTED + ' "$`', min_size=1, max_size=5),
    st.sampled_from(["\\t", "\\n", "\\\\", "\\'", '\\"', "\\x41", "\\101", "\\e", "\\r"]),
)
ansi_seg = st.lists(ansi_inner, max_size=3).map(lambda parts: "$'" + "".join(parts) + "'")
word = st.lists(st.one_of(unquoted_seg, single_seg, double_seg, ansi_seg), min_size=1, max_size=4).map("".join)


def bash_argv(script: str) -> list[str]:
    out = subprocess.run([BASH, "--norc", "--noprofile", "-c", script], capture_output=True, timeout=10, check=True)
    return out.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


@pytest.mark.skipif(BASH is None, reason="bash not installed")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(word, min_size=1, max_size=4), st.sampled_from([" ", "\t", "  "]))
def test_quote_removal_matches_bash(words, sep):
    script = "printf '%s\\0' START " + sep.join(words)  # START: printf with no argument prints one empty string
    expected = bash_argv(script)[1:]
    parsed = parse_script(script + "\n")
    ours = [w.value for w in parsed.commands[0].words[3:]]
    # a word that is only a line continuation vanishes in both
    assert ours == expected, script
    for w in parsed.commands[0].words[3:]:
        assert not w.dynamic
        # every value character maps to a source character inside the raw word
        assert all(w.start <= o < w.end for o in w.offsets)


plain_word = st.text(alphabet="abcXYZ019=:,./-_", min_size=1, max_size=8)
spaced = st.text(alphabet="abc019=:,./- \t", min_size=1, max_size=8).filter(lambda t: t.strip(" \t") != "" or True)


@st.composite
def systemd_words(draw):
    n = draw(st.integers(1, 5))
    rendered, expected = [], []
    for _ in range(n):
        style = draw(st.sampled_from(["plain", "double", "single", "escaped", "mixed"]))
        if style == "plain":
            w = draw(plain_word)
            rendered.append(w)
        elif style == "double":
            w = draw(spaced.map(lambda t: t + "x"))
            rendered.append(f'"{w}"')
        elif style == "single":
            w = draw(spaced.map(lambda t: t + "x"))
            rendered.append(f"'{w}'")
        elif style == "escaped":
            a, b = draw(plain_word), draw(plain_word)
            w = f"{a} {b}"
            rendered.append(f"{a}\\ {b}")
        else:
            a, b = draw(plain_word), draw(spaced.map(lambda t: t + "y"))
            w = a + b
            rendered.append(f'{a}"{b}"')
        expected.append(w)
    seps = [draw(st.sampled_from([" ", "\t", "  ", " \t"])) for _ in range(n - 1)]
    text = rendered[0] + "".join(s + r for s, r in zip(seps, rendered[1:]))
    return text, expected


@settings(max_examples=80, deadline=None)
@given(systemd_words())
def test_split_exec_219_follows_the_facts(case):
    text, expected = case
    split = split_exec_219(text)
    assert not split.exec_fails and split.truncated_at is None
    assert [w.value for w in split.words] == expected
    for w in split.words:  # each character comes from the matching source character
        assert "".join(text[k] for k in w.offsets) == w.value


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab =:-\"' \n", max_size=20))
def test_kubelet_extra_args_219_drop_rules(value):
    r = kubelet_extra_args_219(value)
    if value == "":
        assert not r.dropped and r.argv == []
        return
    q, nl = value.find("'"), value.find("\n")
    if nl != -1 and (q == -1 or nl < q):
        assert r.dropped and r.argv == []  # the drop-in line is cut: its quote never closes, nothing is assigned
    elif q != -1:
        # systemd 219 ends the quoted word at the first ': followed by a separator or the line end it assigns the
        # text before it (the rest is "Trailing garbage"); followed by anything else nothing is assigned
        if q + 1 < len(value) and value[q + 1] in " \t\n":
            assert not r.dropped
            assert r.exec_fails or [w.value for w in r.argv] == [w.value for w in kubelet_extra_args_219(value[:q]).argv]
        else:
            assert r.dropped and r.argv == []
    else:
        assert not r.dropped
        if value.count('"') % 2 == 1:
            # an unterminated double quote: kubelet never starts, unless an empty word ("") ended the list first
            assert r.exec_fails or r.truncated_at is not None


from karplint.testing import lint  # noqa: E402

shellish = st.text(alphabet="abc -=:,'\"\\$`(){}[];&|<>#\n\t*/.", max_size=120)
families = st.sampled_from([
    "  amiFamily: Custom\n", "  amiFamily: AL2\n", "  amiSelectorTerms:\n    - alias: al2023@latest\n",
    "  amiFamily: Custom\n  amiSelectorTerms:\n    - alias: bottlerocket@latest\n",
])
prefixes = st.sampled_from(["", "#!/bin/bash\n/etc/eks/bootstrap.sh c ", "/etc/eks/bootstrap.sh c --kubelet-extra-args ",
                            'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\n\n',
                            'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\n'
                            'Content-Type: text/cloud-config\n\nruncmd:\n  - '])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(families, prefixes, shellish, st.booleans())
def test_rules_never_crash_on_arbitrary_userdata(family, prefix, body, literal):
    import json

    value = prefix + body
    if literal and value.strip():  # a literal block scalar: exact positions, so the fix code paths run too
        scalar = "|-\n" + "".join("    " + ln + "\n" for ln in value.lstrip("\n ").split("\n"))
    else:
        scalar = json.dumps(value) + "\n"
    text = ("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: a}\nspec:\n" + family
            + "  userData: " + scalar)
    found = lint({"t.yaml": text})
    for f in found:
        if f.fix is not None:
            for e in f.fix.edits:
                assert 0 <= e.start <= e.end <= len(text)
    assert not [f for f in found if f.code == "KPL006"], [f.message for f in found if f.code == "KPL006"]
