"""AL2 `/etc/eks/bootstrap.sh` argument parsing, exactly as the script does it (awslabs/amazon-eks-ami `templates/al2/runtime/bootstrap.sh` at 0ab84280).

The script loops `while [[ $# -gt 0 ]]; case $1 in` over **exact words**. Each of the 19 value-taking options
takes the next word blindly (`VAR=$2; shift; shift`), even if it looks like an option; a value-taking option as
the last word aborts with `$2: unbound variable` (set -o nounset) before anything is written. `--opt=value` never
matches and lands in POSITIONAL like any other word; the cluster name is POSITIONAL[0] (so an `=`-form word before
the cluster name becomes the cluster name) and every further positional is ignored. `-h|--help` prints help and
exits 1. Repeated options: last wins. After parsing, an exported `KUBELET_EXTRA_ARGS` is picked up when the flag is
absent (`export`, `declare -x` or `set -a`: `karplint.userdata.environment`). The value then goes to the systemd
drop-in (`karplint.userdata.systemd`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from karplint.userdata.shell import Command, ShellScript, Word

# option -> the script variable it sets (templates/al2/runtime/bootstrap.sh@0ab84280)
VALUE_OPTIONS: dict[str, str] = {
    "--use-max-pods": "USE_MAX_PODS",
    "--b64-cluster-ca": "B64_CLUSTER_CA",
    "--apiserver-endpoint": "APISERVER_ENDPOINT",
    "--kubelet-extra-args": "KUBELET_EXTRA_ARGS",
    "--enable-docker-bridge": "ENABLE_DOCKER_BRIDGE",
    "--aws-api-retry-attempts": "API_RETRY_ATTEMPTS",
    "--docker-config-json": "DOCKER_CONFIG_JSON",
    "--containerd-config-file": "CONTAINERD_CONFIG_FILE",
    "--pause-container-account": "PAUSE_CONTAINER_ACCOUNT",
    "--pause-container-version": "PAUSE_CONTAINER_VERSION",
    "--dns-cluster-ip": "DNS_CLUSTER_IP",
    "--container-runtime": "CONTAINER_RUNTIME",
    "--ip-family": "IP_FAMILY",
    "--service-ipv4-cidr": "SERVICE_IPV4_CIDR",
    "--service-ipv6-cidr": "SERVICE_IPV6_CIDR",
    "--enable-local-outpost": "ENABLE_LOCAL_OUTPOST",
    "--cluster-id": "CLUSTER_ID",
    "--mount-bpf-fs": "MOUNT_BPF_FS",
    "--local-disks": "LOCAL_DISKS",
}
HELP_OPTIONS = ("-h", "--help")
# Variables the script reads from the environment when the option is absent.
ENV_PICKUP = ("KUBELET_EXTRA_ARGS", "B64_CLUSTER_CA", "APISERVER_ENDPOINT", "USE_MAX_PODS", "DNS_CLUSTER_IP",
              "CONTAINER_RUNTIME", "PAUSE_CONTAINER_IMAGE")
# Flags Karpenter passes to the kubelet itself on AL2 (its bootstrap call's --kubelet-extra-args).
KARPENTER_KUBELET_FLAGS = ("register-with-taints", "node-labels", "max-pods")


@dataclass
class OptionUse:
    option: Word  # the option word
    value: Word  # the word taken as its value (blindly)
    looks_like_option: bool  # the value word itself starts with "--" (probably a missing value)


@dataclass
class EqualsForm:
    """A `--opt=value` word: bootstrap.sh never recognises it; it is a positional."""

    word: Word
    option: str  # "--kubelet-extra-args"
    value_offset: int  # index in word.value where the value starts
    is_cluster_name: bool  # it is POSITIONAL[0]


@dataclass
class BootstrapCall:
    cmd: Command
    program_index: int
    options: dict[str, list[OptionUse]] = field(default_factory=dict)
    positionals: list[Word] = field(default_factory=list)
    equals_forms: list[EqualsForm] = field(default_factory=list)
    aborts_at: Word | None = None  # value-taking option as last word: `$2: unbound variable`
    help: Word | None = None  # -h/--help: exits 1
    unknown_options: list[Word] = field(default_factory=list)  # "--x" words that are neither options nor values
    extra_args_from_env: Word | None = None  # KUBELET_EXTRA_ARGS picked up from an export / command prefix

    @property
    def args(self) -> list[Word]:
        return self.cmd.words[self.program_index + 1:]

    @property
    def cluster_name(self) -> Word | None:
        return self.positionals[0] if self.positionals else None

    def last(self, option: str) -> OptionUse | None:
        uses = self.options.get(option)
        return uses[-1] if uses else None

    @property
    def kubelet_extra_args(self) -> Word | None:
        """The word whose value becomes KUBELET_EXTRA_ARGS (flag, else exported environment), or None."""
        use = self.last("--kubelet-extra-args")
        if use is not None:
            return use.value
        return self.extra_args_from_env


def parse_bootstrap(cmd: Command, program_index: int, script: ShellScript | None = None) -> BootstrapCall:
    call = BootstrapCall(cmd, program_index)
    args = call.args
    i = 0
    while i < len(args):
        w = args[i]
        v = w.value
        if v in HELP_OPTIONS and not w.dynamic:
            call.help = w
            break
        if v in VALUE_OPTIONS and not w.dynamic:
            if i + 1 >= len(args):
                call.aborts_at = w
                break
            nxt = args[i + 1]
            call.options.setdefault(v, []).append(
                OptionUse(w, nxt, nxt.value.startswith("--") and not nxt.dynamic))
            i += 2
            continue
        call.positionals.append(w)
        opt, eq, _ = v.partition("=")
        # also when the value holds an unresolved "$X" (kept verbatim in `v`): the option part is still known
        if eq and opt in VALUE_OPTIONS:
            call.equals_forms.append(EqualsForm(w, opt, len(opt) + 1, len(call.positionals) == 1))
        elif v.startswith("--") and not eq and not w.dynamic and i > 0:
            call.unknown_options.append(w)
        i += 1
    if "--kubelet-extra-args" not in call.options and script is not None:
        prefix = next((a for a in cmd.assignments if a.raw.startswith("KUBELET_EXTRA_ARGS=")), None)
        if prefix is not None:
            from karplint.userdata.shell import make_word

            cut = len("KUBELET_EXTRA_ARGS=")
            call.extra_args_from_env = make_word(prefix.raw[cut:], prefix.start + cut)
        else:
            from karplint.userdata.environment import environment_assignment

            last, exported = environment_assignment(script, "KUBELET_EXTRA_ARGS", cmd.start)
            if exported:
                call.extra_args_from_env = last.value
    return call


@dataclass
class ValidationFailure:
    word: Word  # the value (or option) that makes the script exit
    message: str  # first line, ruff shape
    note: str  # why: the check in bootstrap.sh


def _b64_decodes(text: str) -> bool:
    """`echo "$B64_CLUSTER_CA" | base64 -d` (GNU coreutils) succeeds: base64 alphabet, newlines ignored, padded."""
    import base64
    import binascii

    data = (text + "\n").replace("\n", "")
    if len(data) % 4:
        return False
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def validation_failures(call: BootstrapCall) -> list[ValidationFailure]:
    """The checks bootstrap.sh (templates/al2/runtime/bootstrap.sh@0ab84280) makes after option parsing and before
    it writes the kubelet drop-ins; each one exits 1 (`set -o errexit`), so the kubelet is never configured nor
    started. Only values known at lint time are checked; the first failing check is the one that happens."""
    def known(option: str) -> Word | None:
        use = call.last(option)
        return use.value if use is not None and not use.value.dynamic else None

    out: list[ValidationFailure] = []
    runtime = known("--container-runtime")
    if runtime is not None and runtime.value != "containerd":
        out.append(ValidationFailure(runtime, f"`--container-runtime {runtime.value}`: bootstrap.sh exits 1",
                                     "containerd is the only container runtime bootstrap.sh accepts for Kubernetes "
                                     "1.24 and later (\"containerd is the only supported container runtime\"); "
                                     "any other value is \"unsupported container runtime\""))
    family = known("--ip-family")
    fam = family.value.lower() if family is not None else ""
    if family is not None and fam and fam not in ("ipv4", "ipv6"):
        out.append(ValidationFailure(family, f"`--ip-family {family.value}`: bootstrap.sh exits 1",
                                     "\"Invalid --ip-family. Only ipv4 or ipv6 are allowed\" (case-insensitive)"))
    v6 = known("--service-ipv6-cidr")
    if v6 is not None and v6.value and fam == "ipv4":
        out.append(ValidationFailure(v6, "`--service-ipv6-cidr` with `--ip-family ipv4`: bootstrap.sh exits 1",
                                     "\"--ip-family should be ipv6 when --service-ipv6-cidr is specified\""))
    ca, endpoint = known("--b64-cluster-ca"), call.last("--apiserver-endpoint")
    if ca is not None and ca.value and endpoint is not None and endpoint.value.value and not _b64_decodes(ca.value):
        out.append(ValidationFailure(ca, "`--b64-cluster-ca` is not base64: bootstrap.sh exits 1",
                                     "`echo \"$B64_CLUSTER_CA\" | base64 -d` fails under `set -o errexit -o "
                                     "pipefail` before any kubelet configuration is written"))
    outpost = known("--enable-local-outpost")
    if outpost is not None and outpost.value == "true" and not (call.last("--cluster-id") and
                                                                call.last("--cluster-id").value.value):
        out.append(ValidationFailure(outpost, "`--enable-local-outpost true` without `--cluster-id`: bootstrap.sh "
                                     "exits 1", "\"Cluster ID is required when local outpost support is enabled\""))
    dns = call.last("--dns-cluster-ip")
    if (fam == "ipv6" or (v6 is not None and v6.value)) and (dns is None or not dns.value.value) and \
            (v6 is None or not v6.value) and family is not None:
        out.append(ValidationFailure(family, "`--ip-family ipv6` without `--service-ipv6-cidr` or "
                                     "`--dns-cluster-ip`: bootstrap.sh exits 1",
                                     "\"One of --service-ipv6-cidr or --dns-cluster-ip must be provided when "
                                     "--ip-family is ipv6\""))
    return out


# bootstrap.sh@0ab84280, local Outposts clusters: the kubelet authenticates with a bootstrap kubeconfig it prepends
OUTPOST_EXTRA_ARGS = "--bootstrap-kubeconfig /var/lib/kubelet/bootstrap-kubeconfig"


def written_extra_args(call: BootstrapCall, value: str) -> str:
    """The KUBELET_EXTRA_ARGS text bootstrap.sh writes into 30-kubelet-extra-args.conf for the given value: with
    `--enable-local-outpost true` (and a cluster id) it prepends `--bootstrap-kubeconfig ...` to the value."""
    outpost = call.last("--enable-local-outpost")
    if outpost is not None and outpost.value.value == "true":
        return f"{OUTPOST_EXTRA_ARGS} {value}"
    return value
