"""Run an AL2 userData script and the real amazon-eks-ami bootstrap.sh under real bash, confined to a temporary root.

The bootstrap.sh is NOT part of this repository. It is taken from `KARPLINT_EKS_AMI_BOOTSTRAP` (a path to
bootstrap.sh; the files next to it, as in amazon-eks-ami's `templates/al2/runtime/`, are used when present), else
from the shared material beside the checkout (`karplint.testing.SHARED`/amazon-eks-ami/al2-0ab84280/, the runtime
files of awslabs/amazon-eks-ami@0ab84280; CI has it), else found under /work/.mirror/ (a snapshot of awslabs/amazon-eks-ami; the AL2 script is read from the last commit that
had it, `b2289030^` = 0ab84280). Without it, `find_bootstrap()` returns None and the tests using it skip.

Confinement: absolute paths under /etc, /var, /sys, /run, /sbin, /opt, /mnt in the userData and in bootstrap.sh are
rewritten into the temporary root; every command that talks to AWS or the host (imds, aws, kubectl, systemctl,
curl, mount, iptables-save, ...) is a stub on PATH; the whole run happens in a user namespace (`unshare -r`)
where available (bootstrap.sh requires EUID 0), else only when already root, else the run is skipped.

Outcome: userData exit status, each bootstrap.sh exit status, and the drop-ins it wrote (10-kubelet-args.conf,
30-kubelet-extra-args.conf).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from karplint.testing import SHARED

_AL2_COMMIT = "0ab842803d827b8087d78dd2eff0bc408caec771"  # parent of b2289030 "chore: remove AL2 support (#2645)"
_RUNTIME = "templates/al2/runtime"
# The same files in the shared material beside the checkout (its SOURCES.tsv names each file's origin).
_SHARED_AL2 = "amazon-eks-ami/al2-0ab84280"
_ROOTED = re.compile(r"(?<![\w.~$}/-])/(etc|var|sys|run|sbin|opt|mnt)(?=/|\b)")

_STUBS = {
    "imds": r'''case "$1" in
  token) echo TOKEN;;
  latest/dynamic/instance-identity/document) echo '{"region":"us-west-2"}';;
  latest/meta-data/services/domain) echo amazonaws.com;;
  latest/meta-data/mac) echo 0a:00:00:00:00:01;;
  latest/meta-data/local-ipv4) echo 10.0.0.10;;
  latest/meta-data/instance-type) echo m5.large;;
  latest/meta-data/local-hostname) echo ip-10-0-0-10.us-west-2.compute.internal;;
  latest/meta-data/instance-id) echo i-0123456789abcdef0;;
  latest/meta-data/placement/availability-zone) echo us-west-2a;;
  */vpc-ipv4-cidr-blocks) echo 10.0.0.0/16;;
  */ipv6s) echo 2600::1;;
  *) echo "";;
esac''',
    "kubelet": 'echo "Kubernetes v1.29.3-eks"',
    "aws": 'echo "aws stub: $*" >&2; exit 1',
    "kubectl": "exit 0", "systemctl": "exit 0", "curl": "exit 0", "mount": "exit 0", "umount": "exit 0",
    "iptables-save": "exit 0", "chown": "exit 0", "mount-bpf-fs": "exit 0", "setup-local-disks": "exit 0",
    "sysctl": "exit 0", "modprobe": "exit 0", "containerd": "exit 0", "yum": "exit 0", "getent": "exit 0",
    "private-dns-name": "echo ip-10-0-0-10.us-west-2.compute.internal", "provider-id": "echo aws:///us-west-2a/i-0",
    "vercmp": r'''a=$1 op=$2 b=$3
r=$(printf '%s\n%s\n' "$a" "$b" | sort -V | head -1)
case $op in
  gteq) [ "$r" = "$b" ] ;; lt) [ "$a" != "$b" ] && [ "$r" = "$a" ] ;; lteq) [ "$r" = "$a" ] ;;
  gt) [ "$a" != "$b" ] && [ "$r" = "$b" ] ;; eq) [ "$a" = "$b" ] ;; *) exit 2 ;;
esac''',
}
_ETC_EKS_STUBS = {
    "get-ecr-uri.sh": "echo 602401143452.dkr.ecr.us-west-2.amazonaws.com",
    "max-pods-calculator.sh": "echo 29",
    "bootstrap-gpu.sh": "exit 0",
}


@dataclass
class BootstrapSource:
    script: str
    runtime: dict[str, str] = field(default_factory=dict)  # file name in the runtime dir -> text
    origin: str = ""


def _from_file(p: Path) -> BootstrapSource:
    runtime = {f.name: f.read_text(errors="replace") for f in p.parent.iterdir() if f.is_file() and f != p}
    return BootstrapSource(p.read_text(), runtime, str(p))


def find_bootstrap() -> BootstrapSource | None:
    env = os.environ.get("KARPLINT_EKS_AMI_BOOTSTRAP")
    if env:
        p = Path(env)
        return _from_file(p) if p.is_file() else None
    shared = SHARED / _SHARED_AL2 / "bootstrap.sh"  # beside the checkout, as in CI
    if shared.is_file():
        return _from_file(shared)
    for git_dir in sorted(Path("/work/.mirror").glob("*amazon-eks-ami*/repo")):
        try:
            script = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{_AL2_COMMIT}:{_RUNTIME}/bootstrap.sh"],
                                    capture_output=True, text=True, check=True).stdout
            names = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "--name-only", _AL2_COMMIT,
                                    _RUNTIME + "/"], capture_output=True, text=True, check=True).stdout.split()
        except (subprocess.CalledProcessError, OSError):
            continue
        runtime = {}
        for n in names:
            r = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{_AL2_COMMIT}:{n}"], capture_output=True,
                               text=True)
            if r.returncode == 0:
                runtime[n.rsplit("/", 1)[-1]] = r.stdout
        return BootstrapSource(script, runtime, f"{git_dir}@{_AL2_COMMIT}")
    return None


def sandbox_unavailable_reason() -> str | None:
    if shutil.which("bash") is None:
        return "bash is not installed"
    if shutil.which("jq") is None:
        return "jq (used by bootstrap.sh) is not installed"
    if _unshare_works() or os.geteuid() == 0:
        return None
    return "bootstrap.sh must run as root: neither `unshare -r` (user namespaces) nor root is available"


_UNSHARE: bool | None = None


def _unshare_works() -> bool:
    global _UNSHARE
    if _UNSHARE is None:
        try:
            _UNSHARE = shutil.which("unshare") is not None and subprocess.run(
                ["unshare", "-r", "true"], capture_output=True, timeout=10).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _UNSHARE = False
    return _UNSHARE


def rooted(text: str, root: Path) -> str:
    return _ROOTED.sub(lambda m: f"{root}{m.group(0)}", text)


@dataclass
class Outcome:
    exit_status: int
    bootstrap_status: list[int]  # one per bootstrap.sh run, in order
    args_dropin: str | None  # 10-kubelet-args.conf
    extra_args_dropin: str | None  # 30-kubelet-extra-args.conf
    stderr: str

    @property
    def node_joins(self) -> bool:
        """bootstrap.sh ran, finished with status 0 (it starts the kubelet last)."""
        return bool(self.bootstrap_status) and self.bootstrap_status[-1] == 0

    def extra_args_value(self) -> str | None:
        """KUBELET_EXTRA_ARGS exactly as bootstrap.sh wrote it between Environment='KUBELET_EXTRA_ARGS= and the
        final quote of the drop-in (None: no drop-in)."""
        d = self.extra_args_dropin
        if d is None:
            return None
        head = "[Service]\nEnvironment='KUBELET_EXTRA_ARGS="
        assert d.startswith(head) and d.endswith("'\n"), d
        return d[len(head):-2]


def run(userdata: str, source: BootstrapSource, timeout: float = 60) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="karplint-al2-") as tmp:
        root = Path(tmp) / "root"
        bin_dir = Path(tmp) / "bin"
        bin_dir.mkdir()
        for sub in ("etc/eks/containerd", "etc/kubernetes/kubelet", "etc/kubernetes/pki", "var/lib/kubelet",
                    "etc/systemd/system", "etc/sysconfig", "sys/fs/bpf", "sbin", "run"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        rt = source.runtime
        (root / "etc/kubernetes/kubelet/kubelet-config.json").write_text(rt.get("kubelet-config.json", "{}\n"))
        (root / "var/lib/kubelet/kubeconfig").write_text(rt.get("kubelet-kubeconfig", "MASTER_ENDPOINT CLUSTER_NAME\n"))
        for name in ("containerd-config.toml", "kubelet-containerd.service", "sandbox-image.service"):
            (root / "etc/eks/containerd" / name).write_text(rt.get(name, "SANDBOX_IMAGE\n"))
        (root / "etc/eks/iptables-restore.service").write_text(rt.get("iptables-restore.service", ""))
        (root / "etc/eks/eni-max-pods.txt").write_text("m5.large 29\n")
        (root / "etc/hosts").write_text("127.0.0.1 localhost\n")
        for name, body in _ETC_EKS_STUBS.items():
            _script(root / "etc/eks" / name, body)
        for name, body in _STUBS.items():
            _script(bin_dir / name, body)
        _script(root / "sbin/iptables-save", "exit 0")
        status_file = Path(tmp) / "bootstrap-status"
        real = root / "etc/eks/bootstrap-real.sh"
        real.write_text(rooted(source.script, root))
        real.chmod(0o755)
        # the wrapper records each run's status, as the node's cloud-init log would show it
        _script(root / "etc/eks/bootstrap.sh", f'"{real}" "$@"; rc=$?; echo $rc >> "{status_file}"; exit $rc')
        ud = Path(tmp) / "userdata"
        ud.write_text(rooted(userdata, root))
        env = {"PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin", "HOME": tmp, "LANG": "C.UTF-8", "TMPDIR": tmp}
        cmd = ["bash", str(ud)]
        if os.geteuid() != 0:
            cmd = ["unshare", "-r", *cmd]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp, timeout=timeout,
                               stdin=subprocess.DEVNULL)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, err = -1, "timeout"
        statuses = [int(x) for x in status_file.read_text().split()] if status_file.exists() else []
        d = root / "etc/systemd/system/kubelet.service.d"
        read = lambda n: (d / n).read_text().replace(str(root), "") if (d / n).exists() else None  # noqa: E731
        return Outcome(rc, statuses, read("10-kubelet-args.conf"), read("30-kubelet-extra-args.conf"),
                       err.replace(str(root), ""))


def _script(path: Path, body: str) -> None:
    path.write_text("#!/usr/bin/env bash\n" + body + "\n")
    path.chmod(0o755)
