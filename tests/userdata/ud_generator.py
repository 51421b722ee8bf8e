"""A seeded generator of AL2 userData scripts (our own), by class of behaviour, and the comparison of karplint's
prediction with the outcome the sandbox (`sandbox.py`, real bash + the real bootstrap.sh) computes.

Outcome compared: does bootstrap.sh finish (the node gets a kubelet), and the KUBELET_EXTRA_ARGS text it writes
into 30-kubelet-extra-args.conf (None: no drop-in). The systemd side of that text is checked separately against
systemd 219's own code (test_systemd219_port.py).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CA = "Y2VydA=="
HEAD = f"/etc/eks/bootstrap.sh my-cluster --b64-cluster-ca {CA} --apiserver-endpoint https://example.com"
TAINTS = ["karpenter.sh/unregistered:NoExecute", "dedicated=gpu:NoSchedule", "a=b:NoSchedule,c:NoExecute"]
LABELS = ["team=a", "a=b,c=d", "x.io/y=z"]


@dataclass
class Case:
    klass: str
    userdata: str
    # the kubelet flags the author meant the kubelet to get ("intent" class); each one missing from the kubelet's
    # real argv must be reported
    intended: tuple[str, ...] = ()


def _flags(r: random.Random) -> str:
    parts = []
    if r.random() < 0.8:
        parts.append(f"--register-with-taints={r.choice(TAINTS)}")
    if r.random() < 0.6:
        parts.append(f"--node-labels={r.choice(LABELS)}")
    if r.random() < 0.4:
        parts.append(f"--max-pods={r.randint(10, 110)}")
    return " ".join(parts) or "--v=2"


def _quoting(r: random.Random) -> str:
    f = _flags(r)
    style = r.randrange(6)
    if style == 0:
        arg = f"--kubelet-extra-args '{f}'"
    elif style == 1:
        arg = f'--kubelet-extra-args "{f}"'
    elif style == 2:
        arg = "--kubelet-extra-args '" + f.replace("=", '="', 1) + "\"'" if "=" in f else f"--kubelet-extra-args '{f}'"
    elif style == 3:
        arg = f"--kubelet-extra-args='{f}'"  # equals form: a positional
    elif style == 4:
        arg = f"--kubelet-extra-args {f.split()[0]}"  # unquoted: only the first word
    else:
        arg = "--kubelet-extra-args \"" + f.replace("=", '=\\"', 1) + "\\\"\"" if "=" in f else f"--kubelet-extra-args '{f}'"
    return f"#!/bin/bash\n{HEAD} {arg}\n"


def _systemd(r: random.Random) -> str:
    f = _flags(r)
    a, b = (f.split(" ", 1) + ["--v=2"])[:2]
    v = r.choice([
        f"'{a} \\\n{b}'",                       # backslash-newline inside the value: systemd joins the lines
        f"\"{a} \\\\'x\\\\' {b}\"",               # \' inside the Environment quoted word
        f"'{a} --x=\\, {b}'",                   # invalid escape kept
        f"\"{a} --x=' {b}\"",                   # ' followed by a space
        f"\"{a} 'x' {b}\"",                     # ' followed by text: nothing assigned
        f"'{a}\n{b}'",                          # newline without continuation
        f"'{a} \"\" {b}'",                      # empty word ends the list
        f"'{a} --x=\"abc'",                     # unterminated double quote
    ])
    return f"#!/bin/bash\n{HEAD} --kubelet-extra-args {v}\n"


def _validation(r: random.Random) -> str:
    extra = r.choice([
        "--container-runtime dockerd", "--container-runtime containerd", "--ip-family ipv5", "--ip-family IPv4",
        "--ip-family ipv6", "--ip-family ipv6 --dns-cluster-ip fd00::a", "--ip-family ipv6 --service-ipv6-cidr fd00::/108",
        "--service-ipv6-cidr fd00::/108 --ip-family ipv4", "--enable-local-outpost true",
        "--enable-local-outpost true --cluster-id abc", "--b64-cluster-ca Y2VydA", "--b64-cluster-ca 'not base64!'",
        "--b64-cluster-ca Y2VydA==", "--use-max-pods false", "--help", "--kubelet-extra-args",
    ])
    return f"#!/bin/bash\n{HEAD} --kubelet-extra-args '--register-with-taints={r.choice(TAINTS)}' {extra}\n"


def _bash(r: random.Random) -> str:
    t = r.choice(TAINTS)
    return r.choice([
        # a comment line ending in \ inside a continued command ends the command
        f"#!/bin/bash\n{HEAD} \\\n  # taints \\\n  --kubelet-extra-args '--register-with-taints={t}'\n",
        # an assignment without export is not seen by bootstrap.sh; with export it is
        f"#!/bin/bash\nKUBELET_EXTRA_ARGS='--register-with-taints={t}'\n{HEAD}\n",
        f"#!/bin/bash\nexport KUBELET_EXTRA_ARGS='--register-with-taints={t}'\n{HEAD}\n",
        # set -u and an unset variable abort the script before bootstrap.sh
        f"#!/bin/bash\nset -u\nTAINT=\"$UNSET_VAR\"\n{HEAD} --kubelet-extra-args '--register-with-taints={t}'\n",
        f"#!/bin/bash\nset -u\n{HEAD} --kubelet-extra-args \"--register-with-taints=$UNSET_VAR\"\n",
        # an unquoted known variable is split into words
        f"#!/bin/bash\nARGS='--register-with-taints={t} --max-pods=20'\n{HEAD} --kubelet-extra-args $ARGS\n",
        f"#!/bin/bash\nARGS='--register-with-taints={t}'\n{HEAD} --kubelet-extra-args \"$ARGS --max-pods=20\"\n",
        # heredoc inside $(...)
        f"#!/bin/bash\nEXTRA=$(cat <<'EOF'\n--register-with-taints={t}\nEOF\n)\n{HEAD} --kubelet-extra-args \"$EXTRA\"\n",
        f"#!/bin/bash\nEXTRA=$(cat <<EOF\n--register-with-taints={t} \\\\\n--max-pods=20\nEOF\n)\n"
        f"{HEAD} --kubelet-extra-args \"$EXTRA\"\n",
        # Terraform ${...} left in the script: bash "bad substitution" on that line
        f"#!/bin/bash\n{HEAD} --kubelet-extra-args '--register-with-taints={t}' --dns-cluster-ip ${{var.dns}}\n",
        f"#!/bin/bash\necho ${{module.eks.cluster_name}}\n{HEAD} --kubelet-extra-args '--register-with-taints={t}'\n",
    ])


# kubelet flag names and value types. A real kubelet cannot run here: the "real outcome" of these classes is the
# drop-in the real bootstrap.sh wrote, split by the systemd 219 port (checked against its C code), then judged by the
# kubelet flag table generated from the kubelet's registration code (scripts/gen_kubelet_flags.py).
FLAG_NAMES = ["--maxpods=20", "--register-with-taint=a=b:NoSchedule", "--node-label=a=b", "--kube-reserve=cpu=1",
              "--max_pods=20", "--eviction_hard=memory.available<5%", "-max-pods=20", "--network-plugin=cni",
              "--allow-privileged=true", "--container-runtime=remote", "--keep-terminated-pod-volumes",
              "--cpu-cfs-quota=false", "--image-gc-high-threshold=85", "--seccomp-default", "--logtostderr",
              "--maxPods=20", "--registerWithTaints=a:NoSchedule", "--v=2", "--node-ip=10.0.0.1",
              "--pod-max-pids=4096"]
FLAG_VALUES = ["--max-pods=20.5", "--max-pods=20", "--max-pods=0x14", "--max-pods=1_0", "--max-pods=", "--max-pods 30",
               "--kube-reserved=cpu", "--kube-reserved=cpu=100m,memory=1Gi", "--kube-reserved=gpu=1",
               "--kube-reserved=memory=1Gb", "--system-reserved=cpu=100m,,memory=100Mi", "--sync-frequency=5",
               "--sync-frequency=5s", "--eviction-hard=memory.available<100Mi", "--eviction-hard=memory.available=1Gi",
               "--feature-gates=A=true,B=false", "--feature-gates=A=yes", "--fail-swap-on=no", "--fail-swap-on=false",
               "--healthz-bind-address=127.0.0", "--healthz-bind-address=127.0.0.1", "--event-qps=2147483648",
               "--cpu-cfs-quota=maybe", "--pod-max-pids=-1", "--image-gc-high-threshold=85%",
               "--node-status-update-frequency=1m30s", "--tls-cipher-suites=a,\"b", "--cluster-dns=10.100.0.10"]


def _kubelet_flags(r: random.Random, pool: list[str]) -> str:
    words = [f"--register-with-taints={r.choice(TAINTS)}"] + r.sample(pool, r.randint(1, 3))
    r.shuffle(words)
    return " ".join(words)


def _kubelet_name(r: random.Random) -> str:
    return f"#!/bin/bash\n{HEAD} --kubelet-extra-args '{_kubelet_flags(r, FLAG_NAMES)}'\n"


def _kubelet_type(r: random.Random) -> str:
    f = _kubelet_flags(r, FLAG_VALUES)
    quote = "'" if "'" not in f else '"'
    return f"#!/bin/bash\n{HEAD} --kubelet-extra-args {quote}{f}{quote}\n"


def _intent(r: random.Random) -> tuple[str, tuple[str, ...]]:
    """Scripts where the author's taints or labels may silently never reach the kubelet: a variable the script
    never assigns, KUBELET_EXTRA_ARGS exported or not (and the ways bash exports it), a single quote in the value
    after which systemd 219 drops the rest of the drop-in line."""
    t, lab = r.choice(TAINTS), r.choice(LABELS)
    taint, label = f"--register-with-taints={t}", f"--node-labels={lab}"
    choices = [
        # a variable never assigned expands to nothing; assigned, it is used
        (f"{HEAD} --kubelet-extra-args \"--register-with-taints=$TAINTS\"", (taint,)),
        (f"{HEAD} --kubelet-extra-args \"{label} --register-with-taints=${{TAINTS}}\"", (label, taint)),
        (f"TAINTS='{t}'\n{HEAD} --kubelet-extra-args \"--register-with-taints=$TAINTS\"", (taint,)),
        (f"LABELS='{lab}'\n{HEAD} --kubelet-extra-args \"--node-labels=$LABELS {taint}\"", (label, taint)),
        # bootstrap.sh reads KUBELET_EXTRA_ARGS from its environment: only exported values get there
        (f"KUBELET_EXTRA_ARGS='{taint}'\n{HEAD}", (taint,)),
        (f"KUBELET_EXTRA_ARGS='{taint}'\nexport KUBELET_EXTRA_ARGS\n{HEAD}", (taint,)),
        (f"export KUBELET_EXTRA_ARGS\nKUBELET_EXTRA_ARGS='{taint}'\n{HEAD}", (taint,)),
        (f"declare -x KUBELET_EXTRA_ARGS='{taint} {label}'\n{HEAD}", (taint, label)),
        (f"set -a\nKUBELET_EXTRA_ARGS='{taint}'\n{HEAD}", (taint,)),
        (f"KUBELET_EXTRA_ARGS='{taint}' {HEAD}", (taint,)),
        (f"KUBELET_EXTRA_ARGS='{taint}'\n{HEAD}\nexport KUBELET_EXTRA_ARGS", (taint,)),
        # a single quote followed by a space ends systemd 219's quoted Environment= word; followed by text,
        # nothing is assigned
        (f"{HEAD} --kubelet-extra-args \"{label}' {taint}\"", (label, taint)),
        (f"{HEAD} --kubelet-extra-args \"{taint}' {label}\"", (taint, label)),
        (f"{HEAD} --kubelet-extra-args \"{label} --register-with-taints='{t}\"", (label, taint)),
        (f"{HEAD} --kubelet-extra-args \"{label} {taint}\"", (label, taint)),
    ]
    body, intended = r.choice(choices)
    return f"#!/bin/bash\n{body}\n", intended


GENERATORS = {"quoting": _quoting, "systemd": _systemd, "validation": _validation, "bash": _bash,
              "kubelet-name": _kubelet_name, "kubelet-type": _kubelet_type, "intent": _intent}
KUBELET_CLASSES = ("kubelet-name", "kubelet-type")


def generate(n: int, seed: int = 15) -> list[Case]:
    r = random.Random(seed)
    names = sorted(GENERATORS)
    out = []
    for k in (names[i % len(names)] for i in range(n)):
        made = GENERATORS[k](r)
        out.append(Case(k, *made) if isinstance(made, tuple) else Case(k, made))
    return out


UNKNOWN = "<unknown>"


def custom_nodeclass(userdata: str):
    """An `amiFamily: Custom` EC2NodeClass resource with this userData."""
    from karplint.readers.loader import decode, load
    from karplint.model import as_resource

    body = "".join("    " + ln + "\n" if ln else "\n" for ln in userdata.split("\n"))
    text = ("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: nc\nspec:\n  amiFamily: Custom\n"
            "  amiSelectorTerms:\n    - id: ami-0123456789abcdef0\n  role: R\n  userData: |\n" + body)
    docs, _ = load(decode("t.yaml", text.encode()))
    return as_resource(docs[0])


def predict(userdata: str) -> tuple[bool | str, str | None]:
    """karplint's prediction for a Custom (AL2 AMI) userData: (bootstrap.sh finishes, KUBELET_EXTRA_ARGS text
    written into the drop-in or None); UNKNOWN where karplint says it cannot tell."""
    from karplint.userdata.model import analyze

    a = analyze(custom_nodeclass(userdata))
    if a is None or not a.bootstraps:
        return False, None
    ba = a.last_bootstrap
    no_kubelet = getattr(ba, "no_kubelet", None)  # (older models: measure "before" figures with this script)
    if no_kubelet if no_kubelet is not None else (ba.call.aborts_at is not None or ba.call.help is not None):
        return False, None
    if ba.unverifiable or any(w.splits for w in ba.call.args):
        return UNKNOWN, UNKNOWN
    w = ba.extra_args
    value = w.value if w is not None else ""
    try:
        from karplint.userdata.bootstrap import written_extra_args
        value = written_extra_args(ba.call, value)
    except ImportError:
        pass
    return True, value or None


def predict_kubelet_starts(userdata: str) -> bool | str:
    """karplint's verdict on the kubelet of the last bootstrap.sh call: it starts (True), exits at start (False)."""
    from karplint.userdata.model import analyze

    a = analyze(custom_nodeclass(userdata))
    ba = a.last_bootstrap if a is not None else None
    if ba is None or ba.no_kubelet:
        return False
    if ba.unverifiable:
        return UNKNOWN
    return not ba.kubelet_fails


def real_kubelet_starts(dropin: str | None) -> bool:
    """What the kubelet does with the drop-in the real bootstrap.sh wrote: systemd 219 (the port) parses
    `Environment=` and splits `$KUBELET_EXTRA_ARGS` for ExecStart; the kubelet parses the words with pflag (names and
    types from the flag table) and validates taints and labels."""
    from karplint.userdata import kubelet as kl
    from karplint.userdata import kubelet_flags as kf
    from karplint.userdata import systemd219 as sd

    if dropin is None:
        return True
    env = sd.parse_service_environment(dropin, list(range(len(dropin))))
    if "KUBELET_EXTRA_ARGS" not in env.values:
        return True
    assigned = env.values["KUBELET_EXTRA_ARGS"][0]
    rc, words, _ = sd.strv_split_quoted(assigned, relax=True)
    if rc < 0:
        return False  # systemd cannot split it: the exec fails
    argv = ["".join(assigned[k] for k in w) for w in words]
    flags = kl.parse_kubelet_args(argv)
    if flags.positionals or flags.missing_value or kf.problems(flags, argv):
        return False
    for use in flags.all("register-with-taints"):
        if use.value is not None and any(e.fatal for e in kl.parse_taints(use.value)[1]):
            return False
    labels = [lab for use in flags.all("node-labels") if use.value for lab in kl.parse_node_labels(use.value)]
    return not kl.validate_node_labels(labels)


def real_kubelet_argv(dropin: str | None) -> list[str] | None:
    """The extra kubelet argv systemd 219 (the port) makes of the drop-in the real bootstrap.sh wrote (None: the
    exec fails)."""
    from karplint.userdata import systemd219 as sd

    if dropin is None:
        return []
    env = sd.parse_service_environment(dropin, list(range(len(dropin))))
    if "KUBELET_EXTRA_ARGS" not in env.values:
        return []
    assigned = env.values["KUBELET_EXTRA_ARGS"][0]
    rc, words, _ = sd.strv_split_quoted(assigned, relax=True)
    return ["".join(assigned[k] for k in w) for w in words] if rc >= 0 else None


def predict_reported_loss(userdata: str) -> bool:
    """karplint reports that flags the author wrote do not reach the kubelet (the analysis the userData rules
    KPL203 and KPL219-KPL221 report from)."""
    from karplint.userdata.model import analyze

    a = analyze(custom_nodeclass(userdata))
    for ba in (a.bootstraps if a is not None else ()):
        sd = ba.systemd
        if getattr(ba, "empty_expansions", None) or getattr(ba, "unexported_extra_args", None) is not None:
            return True
        if sd is not None and (sd.dropped or sd.exec_fails or sd.truncated_at is not None
                               or getattr(sd, "cut_at", None) is not None):
            return True
    return False


def compare(case: Case, outcome) -> str | None:
    """None when karplint agrees with the sandbox, else why not."""
    if case.intended and outcome.node_joins:
        argv = real_kubelet_argv(outcome.extra_args_dropin) or []
        lost = [f for f in case.intended if f not in argv]
        if bool(lost) != predict_reported_loss(case.userdata):
            return (f"intended flags lost {lost!r} (kubelet argv {argv!r}) but karplint "
                    f"{'does not report it' if lost else 'reports a loss'}")
    joins, value = predict(case.userdata)
    real = (outcome.node_joins, outcome.extra_args_value() if outcome.node_joins else None)
    if (joins, value if joins is True else None) != real:
        return f"karplint {(joins, value)!r} != sandbox {real!r}"
    if case.klass in KUBELET_CLASSES and outcome.node_joins:
        mine, theirs = predict_kubelet_starts(case.userdata), real_kubelet_starts(outcome.extra_args_dropin)
        if mine != theirs:
            return f"kubelet starts: karplint {mine!r} != drop-in + flag table {theirs!r}"
    return None
