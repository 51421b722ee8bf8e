import pytest

from karplint.userdata.systemd import (
    environment_219, kubelet_extra_args_219, split_exec_219, split_exec_252,
)


def words(split):
    return [w.value for w in split.words]


def test_split_219_basic():
    s = split_exec_219('--node-labels="a=b,c=d" --register-with-taints "x:NoSchedule"\t--v=2')
    assert words(s) == ["--node-labels=a=b,c=d", "--register-with-taints", "x:NoSchedule", "--v=2"]
    assert not s.exec_fails
    # quotes anywhere in a word, backslash escapes
    assert words(split_exec_219("a\"b c\"d e\\ f 'g h'")) == ["ab cd", "e f", "g h"]


def test_split_219_offsets():
    value = '--node-labels="a=b"'
    w = split_exec_219(value).words[0]
    assert "".join(value[k] for k in w.offsets) == w.value


def test_split_219_unterminated_double_quote_fails_exec():
    s = split_exec_219('--a "b')
    assert s.exec_fails and s.error_at == 4


def test_split_219_unterminated_single_quote_accepted():
    s = split_exec_219("--a 'b c")
    assert not s.exec_fails and words(s) == ["--a", "b c"]


def test_split_219_empty_word_ends_list():
    s = split_exec_219('--a "" --b')
    assert words(s) == ["--a"] and s.truncated_at == 4 and s.lost == "--b"


def test_split_252():
    assert words(split_exec_252('--a "" --b "c')) == ["--a", "", "--b", "c"]


def test_environment_219():
    assert environment_219("'KUBELET_EXTRA_ARGS=--a \"b\"'").assignments == {"KUBELET_EXTRA_ARGS": '--a "b"'}
    assert environment_219("'A=x'y'").assignments == {}
    assert "Trailing garbage" in environment_219("'A=x'y'").error
    assert environment_219("A=1 B=2 \"C=3 4\"").assignments == {"A": "1", "B": "2", "C": "3 4"}
    assert environment_219("'A=a\\tb'").assignments == {"A": "a\tb"}
    assert environment_219("noequals").assignments == {}


@pytest.mark.parametrize("value,dropped", [
    ("--register-with-taints='a:NoSchedule'", True),
    ("--a=1\n--b=2", True),
    ('--node-labels="a=b"', False),
    ("", False),
])
def test_kubelet_extra_args_219(value, dropped):
    assert kubelet_extra_args_219(value).dropped is dropped


def test_kubelet_extra_args_219_unescape_offsets():
    value = '--register-with-taints=\\"a:NoSchedule\\"'
    r = kubelet_extra_args_219(value)
    assert [w.value for w in r.argv] == ["--register-with-taints=a:NoSchedule"]
    w = r.argv[0]
    assert "".join(value[k] for k in w.offsets) == w.value
    assert kubelet_extra_args_219('--a "b').exec_fails
