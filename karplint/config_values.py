"""The values of the configuration that have a closed set or a grammar, checked as its keys are: a misspelt value
(`cni = "cillium"`, `max-termination-grace-period = "7days"`) would silently switch rules off, so it stops the run
(exit 2) with a did-you-mean, on the line of the file that holds it (`line_of`: tomllib gives no positions).
"""

from __future__ import annotations

import re
from typing import Any

# CNI plugins karplint knows by name. Only `cilium` changes verdicts (its startup taint, KPL301); the others say
# that the cluster does not run it. Anything else is most likely a misspelling (the value is lower-cased first).
KNOWN_CNIS = ("cilium", "aws-vpc-cni", "vpc-cni", "calico", "canal", "flannel", "weave", "antrea", "kube-router",
              "kindnet", "ovn-kubernetes")


def _shown(value: str) -> str:
    """`value` quoted for a message, at most 40 characters of it (a value may be a number of 5,000 digits)."""
    return repr(value) if len(value) <= 40 else repr(value[:40]) + f"... ({len(value):,} characters)"


def _did_you_mean(word: str, known) -> str:
    import difflib

    near = difflib.get_close_matches(word, list(known), n=1)
    return f"; did you mean `{near[0]}`?" if near else f" (known: {', '.join(known)})"


def cluster_value_problem(key: str, value: Any) -> str | None:
    """What is wrong with `[cluster] key = value` (its type already checked), or None."""
    if key == "cni":
        name = value.strip().lower()
        if name not in KNOWN_CNIS:
            hint = _did_you_mean(name[:100], KNOWN_CNIS)
            return f"`cluster.cni`: {_shown(value)} is not a CNI karplint knows{hint}"
    elif key == "kubernetes-version":
        from karplint.userdata.kubelet_flags import parse_minor

        if parse_minor(value) is None:
            return f"`cluster.kubernetes-version`: {_shown(value)} is not a Kubernetes version such as \"1.31\""
    elif key == "nodeclasses":
        if not all(isinstance(v, str) and v for v in value):
            return "`cluster.nodeclasses` must be a list of EC2NodeClass names"
    return None


# Options whose value is a Go duration (the rules parse it with parse_go_duration; anything else turned them off)
_DURATION_OPTIONS = ("max-termination-grace-period", "min-expire-after")
# Options that are whole numbers, with their range: EC2 takes a hop limit of 1 to 64
# (ModifyInstanceMetadataOptions HttpPutResponseHopLimit); a tolerationSeconds window is not negative.
_INTEGER_OPTIONS = {"max-hop-limit": (1, 64), "repair-window-seconds": (0, None)}


def option_value_problem(name: str, value: Any) -> tuple[str, tuple] | None:
    """What is wrong with `[options] name = value` (its type already checked) and where inside the value (keys
    below `options.name`), or None."""
    if name in _DURATION_OPTIONS:
        from karplint.model.durations import parse_go_duration

        if parse_go_duration(value) is None:
            return f"`options.{name}`: {_shown(value)} is not a duration such as \"168h\" or \"90m\"", ()
    elif name in _INTEGER_OPTIONS:
        low, high = _INTEGER_OPTIONS[name]
        if value < low or (high is not None and value > high):
            return (f"`options.{name}` must be between {low} and {high}" if high is not None
                    else f"`options.{name}` must be {low} or more"), ()
    elif name == "instance-types-mode":
        if value not in ("add", "replace"):
            return f"`options.instance-types-mode` must be \"add\" or \"replace\" (got {_shown(value)})", ()
    elif name == "instance-types":
        from karplint.provisioning.catalog import ExtraTypesError, check_extra_types

        try:
            check_extra_types(value)
        except ExtraTypesError as exc:
            return f"`options.instance-types`: {exc}", exc.key
    return None


def diff_nodes_problem(value: Any) -> tuple[str, tuple] | None:
    """What is wrong with `diff-nodes` (a count of nodes for every NodePool, or a table of NodePool name -> count,
    `"*"` for the others) and where inside it, or None. A count is a whole number, 0 or more."""
    def bad(v: Any) -> bool:
        return not isinstance(v, int) or isinstance(v, bool) or v < 0

    def written(v: Any) -> str:  # (as TOML spells it: `true`, not Python's `True`)
        return _shown(str(v).lower() if isinstance(v, bool) else str(v))

    if isinstance(value, dict):
        for name, count in value.items():
            if bad(count):
                return (f"`diff-nodes.{name}` must be a whole number of nodes, 0 or more (got {written(count)})",
                        (name,))
        return None
    if bad(value):
        return ("`diff-nodes` must be a whole number of nodes, 0 or more, or a table of NodePool name = count "
                f"(got {written(value)})"), ()
    return None


def line_of(text: str, keys: tuple) -> int | None:
    """The line of `text` (TOML or JSON) where the key path `keys` is written, found by searching each key in turn
    as a key (bare or quoted, before `=`, `:`, `.` or `]`, not in a comment); None when the last is not found."""
    pos, line = 0, None
    for key in keys:
        k = re.escape(str(key))
        pattern = re.compile(rf"(?<![\w\"'-])(?:\"{k}\"|'{k}'|{k})(?=\s*[=:.\]])")
        for m in pattern.finditer(text, pos):
            start = text.rfind("\n", 0, m.start()) + 1
            if "#" in text[start:m.start()]:
                continue
            pos, line = m.end(), text.count("\n", 0, m.start()) + 1
            break
        else:
            line = None  # a parent not written out (a top-level key of pyproject.toml's table): look further on
    return line
