"""kubelet flag parsing: pflag semantics, `--register-with-taints` and `--node-labels` (kubernetes/kubernetes `pkg/util/taints/taints.go`, `cmd/kubelet/app/options/options.go`; spf13/pflag).

Pure functions over strings; every error carries offsets into the string it was found in, so callers (AL2 shell,
AL2023 NodeConfig `registerWithTaints`/`flags`, Bottlerocket `node-taints`) can map them back to the manifest.

* `parse_taints(value)`: kubelet's taint list grammar (`strings.Split(value, ",")`, no trimming) with kubelet's
  own messages: `key[=value]:Effect`, DNS-1123 lowercase prefix, 63-character names, case-sensitive effects,
  specs ending in `-` parsed as removals and silently dropped, duplicate key+effect.
* `validate_taint(key, value, effect)`: the config-file path (`registerWithTaints` objects, `CheckTaintValidation`).
* `parse_node_labels(value)` / `validate_node_labels(labels)`: ConfigurationMap parsing and `ValidateKubeletFlags`.
* `parse_kubelet_args(argv)`: pflag over a kubelet argv (after systemd splitting), `_` -> `-` in names,
  `--flag=v` / `--flag v` (next word taken even if it starts with `-`), last wins, `--node-labels` accumulates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

# --- k8s.io/apimachinery/pkg/util/validation, messages verbatim -------------------------------------------------
_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
NAME_MAX, PREFIX_MAX, VALUE_MAX = 63, 253, 63

MSG_NAME_EMPTY = "name part must be non-empty"
MSG_NAME_LONG = f"name part must be no more than {NAME_MAX} characters"
MSG_NAME_FMT = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
MSG_QUALIFIED_FMT = ("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and "
                     "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                     "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
                     "and '/' (e.g. 'example.com/MyName')")
MSG_PREFIX_EMPTY = "prefix part must be non-empty"
MSG_PREFIX_LONG = f"prefix part must be no more than {PREFIX_MAX} characters"
MSG_PREFIX_FMT = ("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                  "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                  "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
MSG_VALUE_LONG = f"must be no more than {VALUE_MAX} characters"
MSG_VALUE_FMT = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                 "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                 "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def qualified_name_errors(key: str) -> list[str]:
    """`validation.IsQualifiedName`."""
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
        prefix = None
    elif len(parts) == 2:
        prefix, name = parts
    else:
        return [MSG_QUALIFIED_FMT]
    errs: list[str] = []
    if prefix is not None:
        if prefix == "":
            errs.append(MSG_PREFIX_EMPTY)
        else:
            if len(prefix) > PREFIX_MAX:
                errs.append(MSG_PREFIX_LONG)
            if not _DNS1123_SUBDOMAIN_RE.match(prefix):
                errs.append(MSG_PREFIX_FMT)
    if name == "":
        errs.append(MSG_NAME_EMPTY)
    elif len(name) > NAME_MAX:
        errs.append(MSG_NAME_LONG)
    if not _NAME_RE.match(name):
        errs.append(MSG_NAME_FMT)
    return errs


def label_value_errors(value: str) -> list[str]:
    """`validation.IsValidLabelValue`."""
    errs = []
    if len(value) > VALUE_MAX:
        errs.append(MSG_VALUE_LONG)
    if not _LABEL_VALUE_RE.match(value):
        errs.append(MSG_VALUE_FMT)
    return errs


# --- taints ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str
    start: int = 0  # offsets of the spec in the parsed string
    end: int = 0

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    def same_as(self, key: str, effect: str) -> bool:
        """Taints match on key and effect (Karpenter and kubelet alike)."""
        return self.key == key and self.effect == effect


# Error kinds (stable identifiers for rules and fixes).
EMPTY_SPEC = "empty-spec"  # "" between commas, trailing comma
LEADING_SPACE = "leading-space"  # " key:Effect" after ", " (space kept: strings.Split does not trim)
BAD_EFFECT = "bad-effect"
NO_EFFECT = "no-effect"
BAD_SPEC = "bad-spec"  # too many ':' or '='
BAD_KEY = "bad-key"
BAD_VALUE = "bad-value"
QUOTES = "quotes"  # literal quote characters reached the value
DOLLAR = "dollar"  # a literal $ reached the value (unexpanded variable)
REMOVAL = "removal"  # spec ends in "-": parsed as a removal and dropped, no error
DUPLICATE = "duplicate"


@dataclass(frozen=True)
class TaintError:
    kind: str
    message: str  # kubelet's reason (what follows `invalid argument "<v>" for "--register-with-taints" flag: `)
    start: int  # offsets into the parsed value
    end: int
    fatal: bool = True  # False: kubelet accepts it but the taint is lost (REMOVAL)


def _spec_error(spec: str, st: int, reason_errs: list[str] | None = None, kind: str = BAD_SPEC) -> TaintError:
    msg = f"invalid taint spec: {spec}"
    if reason_errs:
        msg += ", " + "; ".join(reason_errs)
    return TaintError(kind, msg, st, st + len(spec))


def _classify_key_error(spec: str, key: str) -> str:
    if any(q in key for q in "\"'"):
        return QUOTES
    if "$" in key:
        return DOLLAR
    if key.startswith(" ") or key.startswith("\t"):
        return LEADING_SPACE
    return BAD_KEY


def parse_taint(spec: str, start: int = 0) -> tuple[Taint | None, TaintError | None]:
    """kubelet `parseTaint` of one spec (no removal handling). Offsets are relative to `start`."""
    parts = spec.split(":")
    value = ""
    effect = ""
    if len(parts) == 1:
        key = parts[0]
    elif len(parts) == 2:
        effect = parts[1]
        if effect not in EFFECTS:
            eff_start = start + len(parts[0]) + 1
            kind = QUOTES if any(q in effect for q in "\"'") else (DOLLAR if "$" in effect else BAD_EFFECT)
            return None, TaintError(kind, f"invalid taint effect: {effect}, unsupported taint effect",
                                    eff_start, eff_start + len(effect))
        kv = parts[0].split("=")
        if len(kv) > 2:
            return None, _spec_error(spec, start)
        key = kv[0]
        if len(kv) == 2:
            value = kv[1]
            errs = label_value_errors(value)
            if errs:
                kind = QUOTES if any(q in value for q in "\"'") else (DOLLAR if "$" in value else BAD_VALUE)
                err = _spec_error(spec, start, errs, kind)
                return None, err
    else:
        kind = QUOTES if any(q in spec for q in "\"'") else BAD_SPEC
        return None, _spec_error(spec, start, None, kind)
    errs = qualified_name_errors(key)
    if errs:
        return None, _spec_error(spec, start, errs, _classify_key_error(spec, key))
    return Taint(key, value, effect, start, start + len(spec)), None


def parse_taints(value: str) -> tuple[list[Taint], list[TaintError]]:
    """Parse a `--register-with-taints` value like kubelet. Returns (taints kubelet would register, errors).

    Unlike kubelet, which stops at the first error, every spec is checked so all problems can be reported; the
    kubelet would register nothing (it exits) if any error is `fatal`. Offsets index `value`."""
    taints: list[Taint] = []
    errors: list[TaintError] = []
    if value == "":
        return taints, errors
    seen: dict[tuple[str, str], Taint] = {}
    pos = 0
    for spec in value.split(","):
        start = pos
        pos += len(spec) + 1
        if spec == "":
            _, err = parse_taint(spec, start)
            errors.append(replace(err, kind=EMPTY_SPEC))
            continue
        if spec.endswith("-"):
            removed, err = parse_taint(spec[:-1], start)
            if err is not None:
                errors.append(err)
            else:
                errors.append(TaintError(
                    REMOVAL, f"taint spec {spec} ends in '-': kubelet parses it as a removal and drops it",
                    start, start + len(spec), fatal=False))
            continue
        taint, err = parse_taint(spec, start)
        if err is not None:
            errors.append(err)
            continue
        if not taint.effect:
            kind = _classify_key_error(spec, taint.key) if taint.key != taint.key.strip() else NO_EFFECT
            errors.append(TaintError(kind if kind != BAD_KEY else NO_EFFECT, f"invalid taint spec: {spec}",
                                     start, start + len(spec)))
            continue
        if (taint.key, taint.effect) in seen:
            errors.append(TaintError(
                DUPLICATE, "duplicated taints with the same key and effect: "
                f"{{{taint.key} {taint.value} {taint.effect} <nil>}}", start, start + len(spec)))
            continue
        seen[(taint.key, taint.effect)] = taint
        taints.append(taint)
    return taints, errors


def kubelet_flag_error(flag: str, value: str, reason: str) -> str:
    """The message kubelet exits with for a bad flag value."""
    return f'failed to parse kubelet flag: invalid argument "{value}" for "{flag}" flag: {reason}'


def validate_taint(key: str, value: str, effect: str) -> list[str]:
    """Config-file path (`registerWithTaints: [{key, value, effect}]`): kubelet's `CheckTaintValidation`.

    An empty effect passes kubelet (the API server then rejects the Node taint); callers report that separately."""
    errs = []
    key_errs = qualified_name_errors(key)
    if key_errs:
        errs.append(f"invalid taint key: {'; '.join(key_errs)}")
    if value:
        val_errs = label_value_errors(value)
        if val_errs:
            errs.append(f"invalid taint value: {'; '.join(val_errs)}")
    if effect and effect not in EFFECTS:
        errs.append(f"invalid taint effect: {effect}, unsupported taint effect")
    return errs


def near_miss_effect(effect: str) -> str | None:
    """`noschedule` -> `NoSchedule`: the effect the user probably meant."""
    for e in EFFECTS:
        if effect.strip("\"' ").lower() == e.lower():
            return e
    return None


# --- node labels -----------------------------------------------------------------------------------------------------

# staging/src/k8s.io/kubelet/pkg/apis/well_known_labels.go
KUBELET_LABELS = frozenset({
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/instance-type",
    "node.kubernetes.io/instance-type",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
})
KUBELET_LABEL_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")
RESTRICTED_DOMAINS = ("kubernetes.io", "k8s.io")


@dataclass(frozen=True)
class Label:
    key: str
    value: str
    start: int
    end: int


@dataclass(frozen=True)
class LabelError:
    kind: str  # "restricted", "bad-key", "bad-value", "quotes"
    message: str
    start: int
    end: int


def _namespace(key: str) -> str:
    return key.split("/", 1)[0] if "/" in key else ""


def is_kubernetes_label(key: str) -> bool:
    ns = _namespace(key)
    return any(ns == d or ns.endswith("." + d) for d in RESTRICTED_DOMAINS)


def is_kubelet_label(key: str) -> bool:
    if key in KUBELET_LABELS:
        return True
    ns = _namespace(key)
    return any(ns == d or ns.endswith("." + d) for d in KUBELET_LABEL_NAMESPACES)


def parse_node_labels(value: str) -> list[Label]:
    """`cliflag.ConfigurationMap.Set`: split on ",", skip empty items, split each on the first "=", trim spaces."""
    labels = []
    pos = 0
    for item in value.split(","):
        start = pos
        pos += len(item) + 1
        if item == "":
            continue
        k, eq, v = item.partition("=")
        labels.append(Label(k.strip(), v.strip() if eq else "", start, start + len(item)))
    return labels


def validate_node_labels(labels: list[Label]) -> list[LabelError]:
    """`ValidateKubeletFlags`: restricted kubernetes.io/k8s.io keys, qualified-name keys, label values."""
    errors = []
    for lab in labels:
        if is_kubernetes_label(lab.key) and not is_kubelet_label(lab.key):
            errors.append(LabelError(
                "restricted",
                f"unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [{lab.key}]",
                lab.start, lab.end))
            continue
        quoted = any(q in lab.key + lab.value for q in "\"'")
        key_errs = qualified_name_errors(lab.key)
        if key_errs:
            errors.append(LabelError("quotes" if quoted else "bad-key",
                                     f"invalid node labels: {lab.key}: {'; '.join(key_errs)}", lab.start, lab.end))
            continue
        val_errs = label_value_errors(lab.value)
        if val_errs:
            errors.append(LabelError("quotes" if quoted else "bad-value",
                                     f"invalid node labels: {lab.value}: {'; '.join(val_errs)}", lab.start, lab.end))
    return errors


# --- pflag over a kubelet argv ---------------------------------------------------------------------------------------

# kubelet flags that take no value (pflag NoOptDefVal "true"); `--flag=false` still works. Every other flag takes the
# next word as its value when written without "=".
# Removed flags are listed too: an old manifest's `--allow-privileged --register-with-taints=...` must not have
# its taints read as the bool flag's value (the kubelet itself then stops at "unknown flag").
KUBELET_BOOL_FLAGS = frozenset({
    "add-dir-header", "allow-privileged", "alsologtostderr", "anonymous-auth", "authentication-token-webhook",
    "cgroups-per-qos", "containerized", "cpu-cfs-quota", "docker-only", "enable-cadvisor-json-endpoints",
    "enable-controller-attach-detach", "enable-custom-metrics", "enable-debugging-handlers", "enable-load-reader",
    "enable-server", "exit-on-lock-contention", "experimental-allocatable-ignore-eviction",
    "experimental-check-node-capabilities-before-mount", "fail-cgroupv1", "fail-swap-on", "help",
    "keep-terminated-pod-volumes", "kernel-memcg-notification", "local-storage-capacity-isolation",
    "log-json-split-stream", "log-text-split-stream", "logtostderr", "make-iptables-util-chains", "one-output",
    "protect-kernel-defaults", "redirect-container-streaming", "register-node", "register-schedulable",
    "rotate-certificates", "rotate-server-certificates", "runonce", "seccomp-default", "serialize-image-pulls",
    "skip-headers", "skip-log-headers", "version",
})
SHORTHANDS = {"v": "v", "h": "help"}


def is_bool_flag(name: str) -> bool:
    """pflag NoOptDefVal "true": the flag stands alone (the kubelet flag table's bool flags, plus removed ones)."""
    if name in KUBELET_BOOL_FLAGS:
        return True
    from karplint.userdata.kubelet_flags import bool_flags

    return name in bool_flags()


@dataclass
class FlagUse:
    """One occurrence of a flag in the argv."""

    name: str  # normalised: without dashes, `_` -> `-`
    value: str | None  # None for a bool flag written bare
    index: int  # index of the flag word in argv
    value_index: int  # index of the word holding the value (== index for `--flag=v`)
    value_offset: int  # offset of the value inside argv[value_index]


@dataclass
class KubeletFlags:
    uses: list[FlagUse] = field(default_factory=list)
    positionals: list[int] = field(default_factory=list)  # argv indexes of non-flag words ("unknown command")
    missing_value: list[int] = field(default_factory=list)  # flag as last word without value

    def all(self, name: str) -> list[FlagUse]:
        return [u for u in self.uses if u.name == name]

    def last(self, name: str) -> FlagUse | None:
        """pflag: a repeated flag's last value wins (except accumulating flags like --node-labels)."""
        found = self.all(name)
        return found[-1] if found else None

    def value(self, name: str) -> str | None:
        use = self.last(name)
        return use.value if use else None


def normalise_flag_name(name: str) -> str:
    return name.replace("_", "-")


def _bool_or_next_value(flags: KubeletFlags, name: str, argv: list[str], i: int) -> int:
    """pflag, for a flag at argv[i] written without `=`: a boolean flag stands alone, any other takes the next
    word as its value. Returns the index of the last word used."""
    if is_bool_flag(name):
        flags.uses.append(FlagUse(name, None, i, i, len(argv[i])))
    elif i + 1 < len(argv):
        flags.uses.append(FlagUse(name, argv[i + 1], i, i + 1, 0))
        return i + 1
    else:
        flags.missing_value.append(i)
    return i


def parse_kubelet_args(argv: list[str]) -> KubeletFlags:
    """pflag's parse of a kubelet argv (words after systemd splitting, program name excluded)."""
    flags = KubeletFlags()
    i = 0
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "--":
            flags.positionals.extend(range(i + 1, n))
            break
        if word.startswith("--") and len(word) > 2:
            body = word[2:]
            name, eq, val = body.partition("=")
            name = normalise_flag_name(name)
            if eq:
                flags.uses.append(FlagUse(name, val, i, i, len(name) + 3))
            else:
                i = _bool_or_next_value(flags, name, argv, i)
            i += 1
            continue
        if word.startswith("-") and len(word) > 1:
            short, eq, val = word[1:].partition("=")
            name = SHORTHANDS.get(short[:1], short)
            if eq:
                flags.uses.append(FlagUse(name, val, i, i, len(short) + 2))
            elif len(short) > 1 and not is_bool_flag(name):  # -v2
                flags.uses.append(FlagUse(name, short[1:], i, i, 2))
            else:
                i = _bool_or_next_value(flags, name, argv, i)
            i += 1
            continue
        flags.positionals.append(i)
        i += 1
    return flags
