"""EC2NodeClass consistency (KPL260-KPL269): the AMI selected against `amiFamily`.

`amiFamily` decides the userData Karpenter renders and how it models the node (its OS label, its bootstrap);
`amiSelectorTerms` decide which image boots. When they disagree, every field is valid and the node never joins,
or joins as something Karpenter does not expect. An alias term with another family is rejected by the CRD's CEL
rule (KPL130); these rules cover `name` and `ssmParameter` terms and `Custom`.

Sources: the SSM parameters Karpenter itself resolves per family (aws/karpenter-provider-aws
`pkg/providers/amifamily/{al2,al2023,bottlerocket,windows}.go` at bde00654cd316fddb3dccfba3f5ac07039865429),
the EKS-optimized AMI names (https://docs.aws.amazon.com/eks/latest/userguide/eks-optimized-amis.html), and the OS
Karpenter gives a family's nodes (`pkg/providers/instancetype/types.go` `getOS`, same commit).
"""

from __future__ import annotations

import re

from karplint.model import Resource
from karplint.readers.templating import has_placeholder
from karplint.rules import rule
from karplint.rules._legacy import judged
from karplint.wording import and_list

TERMS = ("spec", "amiSelectorTerms")

# (family, field, pattern): AMI names and SSM parameters that identify an EKS-optimized image family.
AMI_SIGNATURES: tuple[tuple[str, str, re.Pattern], ...] = (
    ("AL2023", "name", re.compile(r"^amazon-eks-node-al2023-")),
    ("AL2", "name", re.compile(r"^amazon-eks-(?:gpu-|arm64-)?node-\d")),
    ("Bottlerocket", "name", re.compile(r"^bottlerocket-aws-k8s-")),
    ("Windows", "name", re.compile(r"^Windows_Server-(\d{4})-English-(?:Core|Full)-EKS_Optimized")),
    ("AL2023", "ssmParameter", re.compile(r"^/aws/service/eks/optimized-ami/[^/]+/amazon-linux-2023/")),
    ("AL2", "ssmParameter", re.compile(r"^/aws/service/eks/optimized-ami/[^/]+/amazon-linux-2(?:-arm64|-gpu)?/")),
    ("Bottlerocket", "ssmParameter", re.compile(r"^/aws/service/bottlerocket/aws-k8s-")),
    ("Windows", "ssmParameter",
     re.compile(r"^/aws/service/ami-windows-latest/Windows_Server-(\d{4})-English-(?:Core|Full)-EKS_Optimized")),
)

# What the node of each family reads at boot, and what Karpenter renders for it.
READS: dict[str, str] = {
    "AL2": "a shell script calling /etc/eks/bootstrap.sh (MIME multipart)",
    "AL2023": "a nodeadm NodeConfig",
    "Bottlerocket": "TOML settings",
    "Windows": "PowerShell calling Start-EKSBootstrap.ps1",
}

ALIAS_FOR = {"AL2": "al2@latest", "AL2023": "al2023@latest", "Bottlerocket": "bottlerocket@latest",
             "Windows2019": "windows2019@latest", "Windows2022": "windows2022@latest",
             "Windows2025": "windows2025@latest"}


def _nodeclass(res: Resource) -> bool:
    return res.kind == "EC2NodeClass" and res.group == "karpenter.k8s.aws"


def detect(field: str, value) -> str | None:
    """The family an AMI name or SSM parameter belongs to ("AL2", "AL2023", "Bottlerocket", "Windows2022", ...)."""
    if not isinstance(value, str) or has_placeholder(value):
        return None
    for family, f, pattern in AMI_SIGNATURES:
        if f != field:
            continue
        m = pattern.match(value)
        if m:
            return f"Windows{m.group(1)}" if family == "Windows" else family
    return None


def _base(family: str) -> str:
    return "Windows" if family.startswith("Windows") else family


def _terms(res: Resource):
    terms = res.get(TERMS)
    if not isinstance(terms, list):
        return
    for i, term in enumerate(terms):
        if not isinstance(term, dict):
            continue
        for field in ("name", "ssmParameter"):
            family = detect(field, term.get(field))
            if family:
                yield i, field, term[field], family


def _has_alias(res: Resource) -> bool:
    terms = res.get(TERMS)
    return isinstance(terms, list) and any(isinstance(t, dict) and "alias" in t for t in terms)


@rule("KPL260", "ami-contradicts-ami-family", category="userdata", severity="error",
      summary="An amiSelectorTerms name or ssmParameter selecting another family's EKS AMI than amiFamily",
      kinds=("EC2NodeClass",))
def ami_contradicts_ami_family(res, ctx):
    if not _nodeclass(res) or _has_alias(res):
        return
    family = res.get(("spec", "amiFamily"))
    if not isinstance(family, str) or has_placeholder(family) or family == "Custom" or family not in ALIAS_FOR:
        return
    for i, field, value, found in _terms(res):
        if found == family:
            continue
        same_os = _base(found) == _base(family)
        renders = READS[_base(family)]
        reads = READS[_base(found)]
        if same_os:  # Windows2019 AMI under Windows2022: same userData, wrong build label
            consequence = (f"Karpenter labels the nodes with {family}'s windows-build, so pods selecting "
                           f"{found}'s build never land there")
        else:
            consequence = (f"Karpenter renders {renders} for amiFamily {family}, the {found} image reads "
                           f"{reads}: the node boots without joining the cluster")
        yield ctx.violation(
            res, TERMS + (i, field),
            f"amiSelectorTerms[{i}].{field} selects an EKS {found} AMI but amiFamily is {family}\n"
            f"help: set `amiFamily: {found}`, or select a {family} AMI (e.g. `alias: {ALIAS_FOR[family]}`)\n"
            f"note: {consequence} (aws/karpenter-provider-aws#7660)")


def _powershell(res: Resource) -> bool:
    ud = res.get(("spec", "userData"))
    return isinstance(ud, str) and "<powershell>" in ud.lower()


# First aws/karpenter-provider-aws release of each Windows family (`amiFamily` enum of the EC2NodeClass CRD) and of
# `amiSelectorTerms[].alias` (pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml: `alias` from v1.0.0#L83, the v1
# API; windows2025 and Windows2025 from v1.9.0).
ALIAS_SINCE = "1.0.0"
WINDOWS_SINCE = {"Windows2019": "0.0.0", "Windows2022": "0.0.0", "Windows2025": "1.9.0"}


@rule("KPL261", "windows-ami-under-custom", category="userdata", severity="error",
      summary="amiFamily Custom with a Windows AMI or PowerShell userData: Karpenter models the nodes as Linux",
      kinds=("EC2NodeClass",))
def windows_ami_under_custom(res, ctx):
    from karplint.model.versions import V

    if not _nodeclass(res) or res.get(("spec", "amiFamily")) != "Custom" or _has_alias(res):
        return
    hit = next(((i, f, v, fam) for i, f, v, fam in _terms(res) if fam.startswith("Windows")), None)
    if hit is not None:
        i, field, _, found = hit
        path, what = TERMS + (i, field), f"amiSelectorTerms[{i}].{field} selects an EKS {found} AMI"
        image = f"a {found} image"
    elif _powershell(res):
        found = None  # PowerShell says Windows, not which release
        path, what = ("spec", "userData"), "userData is PowerShell (`<powershell>`)"
        image = "a Windows image (PowerShell userData)"
    else:
        return
    # `alias` exists in the v1 API only, from v1.0.0; Windows2025 from v1.9.0.
    alias = res.version == "v1" and ctx.karpenter_version >= V(ALIAS_SINCE)
    families = [f for f, since in WINDOWS_SINCE.items() if ctx.karpenter_version >= V(since)]
    if found is not None:
        use = f"`amiFamily: {found}`" + (f" (or `alias: {ALIAS_FOR[found]}`)" if alias else "") + " with the image"
    else:
        use = ("the `amiFamily` of the image's Windows Server release ("
               + and_list([f"`{f}`" for f in families], "or") + ")"
               + (", or its alias (" + and_list([f"`{ALIAS_FOR[f]}`" for f in families], "or") + ")" if alias else ""))
    yield ctx.violation(
        res, path,
        f"{image} under amiFamily Custom, which Karpenter treats as Linux\n"
        f"help: use {use}\n"
        f"note: {what}\n"
        "note: Custom nodes get `kubernetes.io/os=linux` and no windows-build label "
        "(aws/karpenter-provider-aws pkg/providers/instancetype/types.go getOS): pods selecting Windows never make "
        "this pool launch a node, and Linux pods are placed on the Windows nodes it launches")


LEGACY_SELECTOR = ("spec", "amiSelector")


def _legacy_name_term(res: Resource):
    """(path, family) of a v1alpha1 AWSNodeTemplate `amiSelector` whose `aws::name` names an EKS-optimized AMI."""
    selector = res.get(LEGACY_SELECTOR)
    if isinstance(selector, dict):
        family = detect("name", selector.get("aws::name"))
        if family:
            return LEGACY_SELECTOR + ("aws::name",), family
    return None


@rule("KPL262", "custom-eks-ami-without-userdata", category="userdata", severity="error",
      summary="amiFamily Custom selecting an EKS-optimized AMI without userData: nothing bootstraps the node",
      kinds=("EC2NodeClass", "AWSNodeTemplate"))
def custom_eks_ami_without_userdata(res, ctx):
    if res.group != "karpenter.k8s.aws" or res.get(("spec", "amiFamily")) != "Custom" or _has_alias(res):
        return
    ud = res.get(("spec", "userData"))
    if isinstance(ud, str) and ud.strip():
        return
    if res.kind == "AWSNodeTemplate":
        # v1alpha1 selects by `amiSelector: {aws::name: ...}`; judged only at a release that serves it, where
        # Custom rendered nothing either (pkg/providers/amifamily/custom.go@v0.31.0).
        hit = _legacy_name_term(res) if judged(res, ctx, legacy=True) else None
        path, found = hit if hit else (None, None)
    elif _nodeclass(res):
        term = next(((i, f, fam) for i, f, _, fam in _terms(res) if not fam.startswith("Windows")), None)
        path, found = (TERMS + term[:2], term[2]) if term else (None, None)
    else:
        return
    if path is None or found.startswith("Windows"):
        return  # Windows images under Custom: KPL261
    yield ctx.violation(
        res, path,
        f"an EKS {found} AMI under amiFamily Custom without userData never joins the cluster\n"
        f"help: use `amiFamily: {found}` (Karpenter then renders the bootstrap for that AMI), or write userData "
        f"that bootstraps it ({READS[_base(found)]})\n"
        "note: with Custom, Karpenter passes spec.userData verbatim and renders nothing else "
        "(aws/karpenter-provider-aws pkg/providers/amifamily/custom.go; aws/karpenter-provider-aws#4708)")


BOTTLEROCKET_OS_DEVICE, BOTTLEROCKET_DATA_DEVICE = "/dev/xvda", "/dev/xvdb"
BOTTLEROCKET_OS_DEFAULT_GIB = 4  # Karpenter's default for /dev/xvda (pkg/providers/amifamily/bottlerocket.go)


def _gib(size) -> float | None:
    """GiB of a Kubernetes quantity such as `100Gi`, `20G`, `2Ti` (None when not a plain size)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|K|M|G|T)?", str(size).strip())
    if not m:
        return None
    factor = {"Ki": 2**-20, "Mi": 2**-10, "Gi": 1, "Ti": 2**10, "K": 1e3 / 2**30, "M": 1e6 / 2**30,
              "G": 1e9 / 2**30, "T": 1e12 / 2**30, None: 1 / 2**30}[m.group(2)]
    return float(m.group(1)) * factor


@rule("KPL263", "bottlerocket-os-volume-only", category="userdata", severity="warning",
      summary="A Bottlerocket EC2NodeClass that enlarges /dev/xvda (the OS volume) and not /dev/xvdb, where "
              "containers, images and emptyDir live",
      kinds=("EC2NodeClass", "AWSNodeTemplate"))
def bottlerocket_os_volume_only(res, ctx):
    from karplint.rules._catalog import ami_family

    # The v1alpha1 AWSNodeTemplate has the same amiFamily and blockDeviceMappings (bottlerocket-os/bottlerocket#3350).
    if not (_nodeclass(res) or (res.kind == "AWSNodeTemplate" and res.group == "karpenter.k8s.aws")):
        return
    family, _ = ami_family(res)
    if family != "Bottlerocket":
        return
    bdms = res.get(("spec", "blockDeviceMappings"))
    if not isinstance(bdms, list):
        return
    devices = {str(b.get("deviceName")): (i, b) for i, b in enumerate(bdms) if isinstance(b, dict)}
    if BOTTLEROCKET_DATA_DEVICE in devices or BOTTLEROCKET_OS_DEVICE not in devices:
        return
    i, os_bdm = devices[BOTTLEROCKET_OS_DEVICE]
    ebs = os_bdm.get("ebs") if isinstance(os_bdm.get("ebs"), dict) else {}
    size = ebs.get("volumeSize")
    gib = _gib(size) if size is not None and not has_placeholder(str(size)) else None
    if gib is None or gib <= BOTTLEROCKET_OS_DEFAULT_GIB * 2:
        return
    path = ("spec", "blockDeviceMappings", i, "ebs", "volumeSize")
    overestimate = (" and, with `rootVolume: true`, Karpenter counts it as the nodes' ephemeral-storage, so pods "
                    "requesting ephemeral-storage are placed on nodes that lack it" if os_bdm.get("rootVolume") is True
                    else "")
    yield ctx.violation(
        res, path,
        f"{BOTTLEROCKET_OS_DEVICE} of {size} enlarges Bottlerocket's OS volume, not container storage\n"
        f"help: size {BOTTLEROCKET_DATA_DEVICE} instead (e.g. `deviceName: {BOTTLEROCKET_DATA_DEVICE}` with "
        f"`volumeSize: {size}`) and keep {BOTTLEROCKET_OS_DEVICE} small (Karpenter's default is 4Gi)\n"
        f"note: container storage stays on {BOTTLEROCKET_DATA_DEVICE}, which this mapping leaves at the image's "
        "default size\n"
        "note: Bottlerocket keeps images, container layers, logs and emptyDir on the data volume; the OS volume "
        "is not used for them" + overestimate + " (aws/karpenter-provider-aws pkg/providers/amifamily/"
        "bottlerocket.go DefaultBlockDeviceMappings, EphemeralBlockDevice; bottlerocket-os/bottlerocket#4663)")


ROOT_VOLUME_SINCE = "0.31.0"  # `rootVolume` first sizes ephemeral-storage in pkg/providers/instancetype/types.go


@rule("KPL290", "bottlerocket-root-volume-on-os-disk", category="userdata", severity="warning",
      summary="A Bottlerocket EC2NodeClass marks its OS volume /dev/xvda `rootVolume: true`: Karpenter plans the "
              "nodes' ephemeral-storage from it, not from the data volume pods use",
      kinds=("EC2NodeClass",))
def bottlerocket_root_volume_on_os_disk(res, ctx):
    from karplint.model.versions import V
    from karplint.rules._catalog import ami_family

    if not _nodeclass(res) or ctx.karpenter_version < V(ROOT_VOLUME_SINCE):
        return
    family, _ = ami_family(res)
    if family != "Bottlerocket":
        return
    bdms = res.get(("spec", "blockDeviceMappings"))
    if not isinstance(bdms, list):
        return
    mapped = {str(b.get("deviceName")): b for b in bdms if isinstance(b, dict)}
    for i, bdm in enumerate(bdms):
        if not isinstance(bdm, dict) or bdm.get("rootVolume") is not True:
            continue
        device = str(bdm.get("deviceName"))
        ebs = bdm.get("ebs") if isinstance(bdm.get("ebs"), dict) else {}
        size = ebs.get("volumeSize")
        # Only the OS volume: another device marked root may be a deliberate stand-in (a RAID of data volumes
        # assembled by a bootstrap container, aws/karpenter-provider-aws#8946) whose size Karpenter should plan.
        if device != BOTTLEROCKET_OS_DEVICE or size is None or has_placeholder(str(size)):
            continue
        gib = _gib(size)
        if BOTTLEROCKET_DATA_DEVICE not in mapped and gib is not None and gib > BOTTLEROCKET_OS_DEFAULT_GIB * 2:
            continue  # KPL263 reports this mapping, the overestimate included
        data = mapped.get(BOTTLEROCKET_DATA_DEVICE)
        data_ebs = data.get("ebs") if isinstance(data, dict) and isinstance(data.get("ebs"), dict) else {}
        data_size = data_ebs.get("volumeSize")
        where = (f"{BOTTLEROCKET_DATA_DEVICE} ({data_size})" if data_size is not None
                 else f"{BOTTLEROCKET_DATA_DEVICE} (the image's default size)")
        yield ctx.violation(
            res, ("spec", "blockDeviceMappings", i, "rootVolume"),
            f"`rootVolume: true` on {device}: Karpenter plans the nodes' ephemeral-storage as {size}\n"
            f"help: move `rootVolume: true` to the {BOTTLEROCKET_DATA_DEVICE} mapping, or remove it (Karpenter "
            f"then sizes ephemeral-storage from {BOTTLEROCKET_DATA_DEVICE})\n"
            "note: Karpenter takes the size of the `rootVolume` mapping as ephemeral-storage whatever the device "
            "(aws/karpenter-provider-aws pkg/providers/instancetype/types.go ephemeralStorage); Bottlerocket's "
            f"{BOTTLEROCKET_OS_DEVICE} holds the OS only, pods' storage is on {where}; a small OS volume leaves little or no ephemeral-storage "
            "after kube-reserved and the eviction threshold, so pods that request it fit no instance type "
            "(aws/karpenter-provider-aws#8535)")

# EKS-optimized AMI names carry the Kubernetes minor they are built for (amazon-eks-node-1.30-v20240807,
# amazon-eks-node-al2023-x86_64-standard-1.30-v20240807, bottlerocket-aws-k8s-1.30-x86_64-v1.21.0-…,
# Windows_Server-2022-English-Core-EKS_Optimized-1.30-2024.08.13). A `name` term with a wildcard and no minor
# matches the images of every Kubernetes version, and Karpenter takes the newest by creation date
# (pkg/providers/amifamily/ami.go `Sort`), whatever its version (aws/karpenter-provider-aws#7731).
_EKS_AMI_NAME = re.compile(r"^(?:amazon-eks-|bottlerocket-aws-k8s-|Windows_Server-\d{4}-English-[^*?]*EKS_Optimized)")
_K8S_MINOR = re.compile(r"(?<![0-9])1\.[0-9]{2}(?![0-9])")


def _wildcard_name_terms(res):
    """(index, term, name) of each amiSelectorTerms term selecting by a name with a wildcard (`*`, `?`)."""
    terms = res.get(TERMS)
    for i, term in enumerate(terms if isinstance(terms, list) else ()):
        name = term.get("name") if isinstance(term, dict) else None
        if isinstance(name, str) and not has_placeholder(name) and any(c in name for c in "*?"):
            yield i, term, name


@rule("KPL624", "ami-name-any-kubernetes-version", category="references", severity="warning",
      summary="An amiSelectorTerms name wildcard over EKS-optimized AMIs that names no Kubernetes version",
      kinds=("EC2NodeClass",))
def ami_name_any_kubernetes_version(res, ctx):
    if not _nodeclass(res):
        return
    for i, term, name in _wildcard_name_terms(res):
        if not _EKS_AMI_NAME.match(name) or _K8S_MINOR.search(name):
            continue
        if isinstance(term.get("owner"), str) and term["owner"] not in ("amazon", "self"):
            continue  # (a private copy of the images, named alike: its versions are the owner's choice)
        yield ctx.violation(
            res, TERMS + (i, "name"),
            f"amiSelectorTerms[{i}].name matches the EKS images of every Kubernetes version\n"
            "help: put the cluster's Kubernetes version in the name (e.g. `amazon-eks-node-al2023-x86_64-nvidia-"
            "1.31-*`), or use an `alias` / `ssmParameter` term, which follow the cluster's version\n"
            f"note: {name!r} names no Kubernetes version; Karpenter launches the newest matching image by creation "
            "date, built for whichever version "
            "was published last; a kubelet newer than the control plane is not supported, an older one may be "
            "years out of support")


# One EKS-optimized image name per family and variant, with `{v}` for the Kubernetes minor (the names of
# https://docs.aws.amazon.com/eks/latest/userguide/eks-optimized-amis.html, Bottlerocket's
# https://github.com/bottlerocket-os/bottlerocket/blob/develop/QUICKSTART-EKS.md and the Windows AMI page).
FAMILY_NAME_SAMPLES: dict[str, tuple[str, ...]] = {
    "AL2": ("amazon-eks-node-{v}-v20231106", "amazon-eks-gpu-node-{v}-v20231106",
            "amazon-eks-arm64-node-{v}-v20231106"),
    "AL2023": ("amazon-eks-node-al2023-x86_64-standard-{v}-v20231106",
               "amazon-eks-node-al2023-arm64-standard-{v}-v20231106",
               "amazon-eks-node-al2023-x86_64-nvidia-{v}-v20231106"),
    "Bottlerocket": ("bottlerocket-aws-k8s-{v}-x86_64-v1.16.1-763f6d4c",
                     "bottlerocket-aws-k8s-{v}-aarch64-v1.16.1-763f6d4c",
                     "bottlerocket-aws-k8s-{v}-nvidia-x86_64-v1.16.1-763f6d4c"),
    "Windows2019": ("Windows_Server-2019-English-Core-EKS_Optimized-{v}-2023.11.14",),
    "Windows2022": ("Windows_Server-2022-English-Core-EKS_Optimized-{v}-2023.11.14",),
}


def _families_matched(pattern: str) -> list[str]:
    import fnmatch

    m = _K8S_MINOR.search(pattern)
    minor = m.group(0) if m else "1.30"
    return [family for family, samples in FAMILY_NAME_SAMPLES.items()
            if any(fnmatch.fnmatchcase(s.format(v=minor), pattern) for s in samples)]


@rule("KPL627", "ami-name-spans-families", category="references", severity="warning",
      summary="An amiSelectorTerms name wildcard that also matches EKS-optimized AMIs of another family than "
              "amiFamily", kinds=("EC2NodeClass",))
def ami_name_spans_families(res, ctx):
    if not _nodeclass(res) or _has_alias(res):
        return
    family = res.get(("spec", "amiFamily"))
    if not isinstance(family, str) or family not in ALIAS_FOR:  # (Custom, or a placeholder: no userData to clash)
        return
    for i, term, name in _wildcard_name_terms(res):
        if isinstance(term.get("owner"), str) and term["owner"] not in ("amazon",):
            continue  # (the owner's own images: their names need not follow EKS's)
        others = [f for f in _families_matched(name) if f != family]
        if not others:
            continue
        yield ctx.violation(
            res, TERMS + (i, "name"),
            f"amiSelectorTerms[{i}].name also matches other families' EKS images (amiFamily {family})\n"
            f"help: start the name with the {family} image prefix, or use `alias: {ALIAS_FOR[family]}`\n"
            f"note: {name!r} matches the EKS {and_list(others)} images too; amiFamily filters no image: Karpenter "
            "launches the newest match of any family and renders "
            f"{family}'s userData for it; an image of another family boots without joining the cluster "
            "(aws/karpenter-provider-aws#5091)")
