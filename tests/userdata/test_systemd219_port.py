"""karplint's systemd 219 model against systemd 219 itself.

* `systemd219_c_outcomes.json`: outcomes computed by systemd 219's own C functions (compiled locally from
  redhat-plumbers/systemd-rhel7@d2d5f303, see the file's "source"; the C code is not part of this repository):
  the model must give the same outcome for every recorded value.
* hypothesis: the model (`systemd.kubelet_extra_args_219`, which keeps source offsets for findings) against a
  direct composition of the line-by-line port (`systemd219`) on strings full of backslashes, quotes, spaces and
  newlines; and the offsets point at the characters the kubelet receives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karplint.userdata import systemd219 as sd
from karplint.userdata.systemd import environment_219, kubelet_extra_args_219

C_OUTCOMES = json.loads((Path(__file__).parent / "systemd219_c_outcomes.json").read_text())["rows"]


def outcome(value: str) -> tuple[str, list[str]]:
    r = kubelet_extra_args_219(value)
    if r.dropped:
        return "dropped", []
    if r.exec_fails:
        return "exec-fails", []
    return "args", [w.value for w in r.argv]


def test_c_outcomes_table_is_varied():
    kinds = {row[1] for row in C_OUTCOMES}
    assert kinds == {"dropped", "exec-fails", "args"} and len(C_OUTCOMES) > 500


@pytest.mark.parametrize("value,kind,argv", C_OUTCOMES, ids=range(len(C_OUTCOMES)))
def test_model_agrees_with_systemd_219_c_code(value, kind, argv):
    assert outcome(value) == (kind, argv)


@pytest.mark.parametrize("value,argv", [
    # a line ending in \ inside the drop-in is joined with the next line by the config parser
    ("--a=b \\\n--c=d", ["--a=b", "--c=d"]),
    # \' inside a double-quoted word does not end the Environment= quoted word
    ("--a=\"x\\'y\" --b", ["--a=x'y", "--b"]),
    # an invalid escape such as \, is kept by cunescape and only the ExecStart split removes the backslash
    ("--a=\\, --b", ["--a=,", "--b"]),
    # ' followed by a space ends the quoted word: what precedes it is assigned, the rest is trailing garbage
    ("--a=' --b", ["--a="]),
])
def test_issue_15_classes(value, argv):
    assert outcome(value) == ("args", argv)


def test_quote_followed_by_text_drops_the_value():
    assert outcome("--a 'x' --b")[0] == "dropped"
    assert outcome("--a\n--b")[0] == "dropped"  # no continuation: the line is cut, its quote never closes


def test_environment_219():
    assert environment_219("'A=x' B=\\,").assignments == {"A": "x", "B": "\\,"}
    r = environment_219("'A=x'y'")
    assert r.assignments == {} and "Trailing garbage" in r.error


def direct(value: str) -> tuple[str, list[str]]:
    if value == "":
        return "args", []
    text = "[Service]\nEnvironment='KUBELET_EXTRA_ARGS=" + value + "'\n"
    env = sd.parse_service_environment(text, list(range(len(text))))
    if "KUBELET_EXTRA_ARGS" not in env.values:
        return "dropped", []
    assigned = env.values["KUBELET_EXTRA_ARGS"][0]
    rc, words, _ = sd.strv_split_quoted(assigned, relax=True)
    if rc < 0:
        return "exec-fails", []
    return "args", ["".join(assigned[k] for k in w) for w in words]


tricky = st.lists(st.sampled_from(list("ab=:-,\"' \\\n\t#") + ["\\x41", "\\101", "\\n", "\\s", "\\\n"]),
                  max_size=24).map("".join)


@settings(max_examples=300, deadline=None)
@given(tricky)
def test_model_agrees_with_port(value):
    assert outcome(value) == direct(value)
    for w in kubelet_extra_args_219(value).argv:  # each argv character comes from the value (or an escape there)
        assert all(0 <= k < len(value) for k in w.offsets)
