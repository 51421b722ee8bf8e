"""userData rules for AL2023 nodeadm NodeConfigs, Bottlerocket TOML and Windows PowerShell (KPL230-KPL259).

The analysis lives in `karplint/userdata/{nodeadm,bottlerocket,windows}.py`; these rules only decide what to report
and where (`karplint.userdata.model.analyze` gives the parts and their manifest positions).
"""

from __future__ import annotations

from karplint.findings import Edit, Fix
from karplint.rules.base import rule
from karplint.rules._legacy import LEGACY, userdata_analysis
from karplint.userdata import bottlerocket as br
from karplint.userdata import bottlerocket_models as br_models
from karplint.userdata import content as ct
from karplint.userdata import nodeadm, windows
from karplint.userdata.analysers import nodeconfig_docs, nodeconfig_parts, toml_parts
from karplint.userdata.model import analyze
from karplint.model.versions import Version

KINDS = ("EC2NodeClass", "AWSNodeTemplate")

# Families whose userData may hold a NodeConfig nodeadm reads (None: no amiFamily and no alias).
UNREGISTERED = "karpenter.sh/unregistered:NoExecute"
# Release notes and `pkg/providers/amifamily/bootstrap/nodeadm.go`: the registration taint exists from v1.0, when Karpenter's NodeConfig also moved last.
REGISTRATION_TAINT_SINCE = Version(1, 0, 0)
KARPENTER_NODECONFIG_LAST_SINCE = Version(1, 0, 0)
AL2_SCRIPT_WRAP_SINCE = Version(0, 26, 0)  # aws/karpenter-provider-aws#3427: non-MIME AL2 userData becomes a script




def _issues(res, ctx, kinds: tuple[str, ...]):
    analysis = userdata_analysis(res, ctx)
    if analysis is None:
        return
    for part, docs in nodeconfig_parts(analysis):
        for doc in docs:
            for issue in doc.issues:
                if issue.kind in kinds:
                    yield ctx.at(res, res.doc, part.view.span(issue.start, issue.end), issue.message,
                                 severity=issue.severity)


# --------------------------------------------------------------------------------------------- AL2023 / nodeadm


@rule("KPL230", "al2023-register-with-taints-flag", category="userdata", severity="error",
      summary="AL2023 NodeConfig kubelet.flags --register-with-taints overrides Karpenter's taints and drops "
              "karpenter.sh/unregistered", kinds=KINDS)
def al2023_register_with_taints_flag(res, ctx):
    analysis = userdata_analysis(res, ctx)
    if analysis is None or analysis.family != ct.AL2023:
        return
    parts = list(nodeconfig_parts(analysis))
    docs = [d for _, ds in parts for d in ds]
    owners = [p for p, ds in parts for _ in ds]
    uses = [u for u in nodeadm.user_flags(docs) if u.name == "register-with-taints"]
    for i, use in enumerate(uses):
        doc, part = docs[use.doc], owners[use.doc]
        item = next((f for f in doc.flags if f.index == use.item), None)
        if item is None:
            continue
        later = i < len(uses) - 1
        reg = nodeadm.registration(docs)
        outcome = "a later --register-with-taints replaces it, and that one" if later else "the kubelet"
        lost = ["the NodePool's taints and startupTaints"]
        if ctx.karpenter_version >= REGISTRATION_TAINT_SINCE:
            if reg.taints is None or later or not nodeadm.has_unregistered_taint(reg.taints):
                lost.insert(0, UNREGISTERED)
        if reg.error and not later:
            what = f"{outcome} exits ({reg.error}), so the node never registers"
        elif reg.taints is not None and not later:
            taints = ", ".join(str(t) for t in reg.taints) or "no taints"
            what = f"{outcome} registers with only [{taints}], without {' and '.join(lost)}"
        else:
            what = f"{outcome} registers with the flag's taints only, without {' and '.join(lost)}"
        yield ctx.at(res, res.doc, part.view.span(item.start, item.end),
                     "--register-with-taints in kubelet.flags overrides Karpenter's registerWithTaints\n"
                     "help: declare the taints in the NodePool (spec.template.spec.taints or startupTaints) instead\n"
                     f"note: {what} (command-line flags beat config drop-ins, aws/karpenter-provider-aws#7486)")


@rule("KPL231", "al2023-nodeconfig-overridden", category="userdata", severity="warning",
      summary="AL2023 NodeConfig fields Karpenter's generated NodeConfig (merged last) replaces", kinds=KINDS)
def al2023_nodeconfig_overridden(res, ctx):
    analysis = userdata_analysis(res, ctx)
    if analysis is None or analysis.family != ct.AL2023:
        return
    parts = list(nodeconfig_parts(analysis))
    docs = [d for _, ds in parts for d in ds]
    owners = [p for p, ds in parts for _ in ds]
    for doc, owner in zip(docs, owners):  # every release: Karpenter's NodeConfig always carries a maxPods
        if not doc.fatal and doc.exists(nodeadm.MAX_PODS_EXPRESSION):
            yield ctx.at(res, res.doc, owner.view.span(*doc.span(nodeadm.MAX_PODS_EXPRESSION, key=True)),
                         "kubelet.maxPodsExpression is never evaluated: Karpenter's NodeConfig sets maxPods\n"
                         "help: set spec.kubelet.maxPods (or podsPerCore) in the EC2NodeClass; Karpenter also "
                         "schedules pods with that value\nnote: nodeadm computes maxPods from the expression only when "
                         "no kubelet.config.maxPods is configured (aws/karpenter-provider-aws#8739)")
    if ctx.karpenter_version < KARPENTER_NODECONFIG_LAST_SINCE:
        return  # v0.35-v0.37 put Karpenter's NodeConfig first: the user's values won there
    hints = {
        "registerWithTaints": "\nhelp: declare these taints in the NodePool (spec.template.spec.taints or "
                              "startupTaints)",
        "maxPods": "\nhelp: set spec.kubelet.maxPods in the EC2NodeClass instead",
        "clusterDNS": "\nhelp: set spec.kubelet.clusterDNS in the EC2NodeClass instead",
    }
    for o in nodeadm.overridden_by_karpenter(docs, res.get(("spec", "kubelet"))):
        doc = docs[o.doc]
        name = ".".join(o.path[1:])
        identity = o.path in nodeadm.CLUSTER_IDENTITY_PATHS
        yield ctx.at(res, res.doc, owners[o.doc].view.span(*doc.span(o.path, key=True)),
                     f"{name} is replaced by Karpenter's generated NodeConfig{hints.get(o.path[-1], '')}\n"
                     f"note: nodeadm merges Karpenter's NodeConfig last, and it sets {o.what}"
                     + (br.IDENTITY_NOTE if identity else ""), severity="info" if identity else None)


@rule("KPL232", "al2023-flag-overrides-karpenter", category="userdata", severity="warning",
      summary="AL2023 NodeConfig kubelet.flags that override settings Karpenter configures (e.g. --max-pods)",
      kinds=KINDS)
def al2023_flag_overrides_karpenter(res, ctx):
    analysis = userdata_analysis(res, ctx)
    if analysis is None or analysis.family != ct.AL2023:
        return
    parts = list(nodeconfig_parts(analysis))
    docs = [d for _, ds in parts for d in ds]
    owners = [p for p, ds in parts for _ in ds]
    for use in nodeadm.user_flags(docs):
        if use.name == "register-with-taints" or use.name not in nodeadm.FLAGS_OVERRIDING_KARPENTER:
            continue
        item = next((f for f in docs[use.doc].flags if f.index == use.item), None)
        if item is None:
            continue
        yield ctx.at(res, res.doc, owners[use.doc].view.span(item.start, item.end),
                     f"--{use.name} in kubelet.flags overrides the value Karpenter configures\n"
                     "help: configure it in the EC2NodeClass spec.kubelet instead\n"
                     f"note: it replaces Karpenter's {nodeadm.FLAGS_OVERRIDING_KARPENTER[use.name]} (flags beat "
                     "Karpenter's config drop-in)")


@rule("KPL233", "nodeconfig-decode-error", category="userdata", severity="error",
      summary="A NodeConfig nodeadm cannot decode (YAML error, wrong apiVersion/kind, flags as a string, wrong "
              "types): the node never joins", kinds=KINDS)
def nodeconfig_decode_error(res, ctx):
    analysis = userdata_analysis(res, ctx)
    wrapped = analysis is not None and analysis.family == ct.AL2023 and analysis.mime is None
    for v in _issues(res, ctx, ("yaml", "not-object", "type-meta", "type", "flags-not-list", "taints-type")):
        if wrapped and "needs apiVersion" in v.message:
            v.message += ("\nhelp: put other YAML in a MIME part with its own Content-Type (e.g. text/cloud-config)"
                          "\nnote: Karpenter sends non-MIME YAML userData (cloud-config included) to nodeadm as a "
                          "NodeConfig part")
        yield v


@rule("KPL234", "nodeconfig-flag-newline", category="userdata", severity="error",
      summary="A NodeConfig kubelet.flags item with a newline: what follows never reaches the kubelet", kinds=KINDS)
def nodeconfig_flag_newline(res, ctx):
    yield from _issues(res, ctx, ("flag-newline",))


@rule("KPL235", "nodeconfig-unknown-field", category="userdata", severity="warning",
      summary="A NodeConfig field nodeadm does not know (e.g. `flag:`): silently ignored", kinds=KINDS)
def nodeconfig_unknown_field(res, ctx):
    yield from _issues(res, ctx, ("unknown-field",))


@rule("KPL236", "nodeconfig-invalid-taint", category="userdata", severity="error",
      summary="A NodeConfig registerWithTaints item or --register-with-taints value the kubelet rejects",
      kinds=KINDS)
def nodeconfig_invalid_taint(res, ctx):
    analysis = userdata_analysis(res, ctx)
    if analysis is None:
        return
    if analysis.family == ct.AL2023:
        # Karpenter's NodeConfig (merged last from v1.0) replaces registerWithTaints, so the user's list never reaches
        # the kubelet (KPL231 says so); the flag itself is KPL230, which says what its value does
        if ctx.karpenter_version < KARPENTER_NODECONFIG_LAST_SINCE:
            yield from _issues(res, ctx, ("taint-invalid",))
        return
    yield from _issues(res, ctx, ("taint-invalid",))
    parts = list(nodeconfig_parts(analysis))
    docs = [d for _, ds in parts for d in ds]
    owners = [p for p, ds in parts for _ in ds]
    reg = nodeadm.registration(docs)
    if reg.source == "error" and reg.flag_doc is not None and reg.error:
        item = next((f for f in docs[reg.flag_doc].flags if f.index == reg.flag_item), None)
        if item is not None:
            hint = ""
            if ", " in item.effective:
                hint = ("\nhelp: remove the spaces between taints\nnote: the space after a comma makes systemd "
                        "split the value into two argv words")
            yield ctx.at(res, res.doc, owners[reg.flag_doc].view.span(item.start, item.end),
                         f"the kubelet exits: invalid --register-with-taints{hint}\nnote: {reg.error}")


# --------------------------------------------------------------------------------------------- Bottlerocket


def _toml_issues(res, ctx, kinds: tuple[str, ...], legacy: bool = False):
    analysis = userdata_analysis(res, ctx, legacy)
    if analysis is None:
        return
    for part, settings, merges in toml_parts(analysis):
        if settings.data is None:
            continue
        for issue in br.check(settings, karpenter_merges=merges, release=ctx.karpenter_version):
            if issue.kind in kinds:
                yield ctx.at(res, res.doc, part.view.span(issue.start, issue.end), issue.message,
                             severity=issue.severity)


@rule("KPL240", "bottlerocket-invalid-toml", category="userdata", severity="error",
      summary="Bottlerocket userData that is not valid TOML (Karpenter: 'invalid UserData', no node launches)",
      kinds=KINDS)
def bottlerocket_invalid_toml(res, ctx):
    analysis = userdata_analysis(res, ctx, legacy=True)
    if analysis is None:
        return
    for part, settings, merges in toml_parts(analysis):
        if settings.error is None:
            continue
        if settings.error.kind == "toml-budget":  # not decoded (too costly): not verified, not invalid
            yield ctx.at(res, res.doc, part.view.span(settings.error.start - settings.base,
                                                      settings.error.end - settings.base),
                         settings.error.message, severity="info")
            continue
        message = "userData is not valid TOML"
        if analysis.text.style == ">":
            message += ("\nhelp: use a literal `|` block\nnote: the userData is a folded `>` block scalar: YAML joins "
                        "its lines with spaces, which breaks the TOML (aws/karpenter-provider-aws#5915)")
        elif analysis.text.style in ('"', "'", None) and "\n" not in analysis.text.text.strip():
            message += ("\nhelp: use a literal `|` block\nnote: the userData is a one-line scalar: TOML needs its "
                        "tables and keys on separate lines")
        message += f"\nnote: {settings.error.message.removeprefix('not valid TOML: ')}"
        if merges:
            message += "\nnote: Karpenter fails to render the launch template ('invalid UserData') and launches no node"
        else:
            message += "\nnote: Bottlerocket cannot read its settings and the node never joins"
        yield ctx.at(res, res.doc, part.view.span(settings.error.start - settings.base,
                                                  settings.error.end - settings.base), message)


@rule("KPL241", "bottlerocket-setting-replaced", category="userdata", severity="warning",
      summary="Bottlerocket settings Karpenter always replaces (node-taints, cluster-name, api-server, "
              "cluster-certificate, max-pods, cluster-dns-ip, its own node-labels)", kinds=KINDS)
def bottlerocket_setting_replaced(res, ctx):
    yield from _toml_issues(res, ctx, ("replaced",))
    analysis = userdata_analysis(res, ctx)
    kubelet = res.get(("spec", "kubelet"))
    if analysis is None or analysis.family != ct.BOTTLEROCKET or not isinstance(kubelet, dict):
        return
    for part, settings, _ in toml_parts(analysis):
        k8s = settings.kubernetes()
        for field, key in br.NODECLASS_KUBELET_TO_SETTINGS.items():
            if kubelet.get(field) is not None and key in k8s:
                yield ctx.at(res, res.doc, part.view.span(*settings.span(("settings", "kubernetes", key))),
                             f"settings.kubernetes.{key} is never used: Karpenter replaces it\n"
                             f"help: remove it; Karpenter uses the EC2NodeClass spec.kubelet.{field}")


@rule("KPL242", "bottlerocket-invalid-node-taints", category="userdata", severity="error",
      summary="settings.kubernetes.node-taints that Karpenter, Bottlerocket or the kubelet rejects", kinds=KINDS)
def bottlerocket_invalid_node_taints(res, ctx):
    yield from _toml_issues(res, ctx, ("taints-shape", "taints-value"), legacy=True)


@rule("KPL243", "bottlerocket-unknown-setting", category="userdata", severity="warning",
      summary="settings.kubernetes keys Karpenter drops (unknown to its merge or to Bottlerocket) and tables "
              "outside `settings`", kinds=KINDS)
def bottlerocket_unknown_setting(res, ctx):
    # judged on legacy objects too: what Karpenter keeps is known for every release (bottlerocket_releases.py)
    yield from _toml_issues(res, ctx, ("unknown", "outside-settings"), legacy=True)


@rule("KPL244", "bottlerocket-setting-type", category="userdata", severity="error",
      summary="A Bottlerocket setting of the wrong TOML type: Karpenter's typed decode fails ('invalid UserData')",
      kinds=KINDS)
def bottlerocket_setting_type(res, ctx):
    yield from _toml_issues(res, ctx, ("type",))


@rule("KPL245", "bottlerocket-invalid-node-labels", category="userdata", severity="error",
      summary="settings.kubernetes.node-labels the kubelet refuses at start (e.g. node-role.kubernetes.io/*)",
      kinds=KINDS)
def bottlerocket_invalid_node_labels(res, ctx):
    yield from _toml_issues(res, ctx, ("labels-value",), legacy=True)


@rule("KPL246", "bottlerocket-setting-model-type", category="userdata", severity="error",
      summary="A Bottlerocket setting outside settings.kubernetes (kernel.sysctl, pki, host/bootstrap containers, "
              "registry mirrors) of a type Bottlerocket rejects: the node never joins", kinds=KINDS)
def bottlerocket_setting_model_type(res, ctx):
    analysis = userdata_analysis(res, ctx, legacy=True)
    if analysis is None:
        return
    for part, settings, merges in toml_parts(analysis):
        table = (settings.data or {}).get("settings")
        if not isinstance(table, dict):
            continue
        for path, message in br_models.problems(table):
            yield ctx.at(res, res.doc, part.view.span(*settings.span(("settings",) + path)),
                         message + "\nnote: Bottlerocket's API rejects the whole userData at boot (early-boot-config "
                         "fails) and the node never joins")


# What each family's node does with a part it takes for a script (AL2/Ubuntu/AL2023: cloud-init runs it with bash;
# Windows: EC2Launch runs it with PowerShell), and what reads the formats written there by mistake.
_SCRIPT_PART = {ct.SHELL: "cloud-init runs it as a shell script", ct.POWERSHELL: "EC2Launch runs it as PowerShell"}
_FOREIGN_FORMAT = {
    ct.TOML: ("Bottlerocket settings (TOML)", "only Bottlerocket reads them (amiFamily Bottlerocket, or a "
                                               "bottlerocket@ alias)"),
    ct.NODECONFIG: ("an AL2023 nodeadm NodeConfig", "only nodeadm on AL2023 reads it, from an application/node.eks.aws "
                                                    "part"),
}


@rule("KPL247", "userdata-format-wrong-for-family", category="userdata", severity="error",
      summary="userData written for another OS (Bottlerocket TOML, an AL2023 NodeConfig) where the family's node "
              "runs it as a script", kinds=KINDS)
def userdata_format_wrong_for_family(res, ctx):
    analysis = userdata_analysis(res, ctx, legacy=True)
    if analysis is None:
        return
    family = analysis.family
    if family == ct.AL2:
        # An AL2 EC2NodeClass is KPL222's; a legacy AWSNodeTemplate is judged here, from the release that wraps
        # non-MIME AL2 userData as a shell-script part (v0.26.0, #3427; before it Karpenter rejected it).
        if (res.group, res.version, res.kind) not in LEGACY or ctx.karpenter_version < AL2_SCRIPT_WRAP_SINCE:
            return
    elif family not in (ct.AL2023, ct.UBUNTU) and not ct.is_windows(family):
        return
    for part in analysis.parts:
        runs = _SCRIPT_PART.get(part.kind)
        found = ct.sniff(part.view.text).kind if runs else None
        if found not in _FOREIGN_FORMAT or (found == ct.NODECONFIG and family == ct.AL2023 and part.index is None):
            continue
        what, reader = _FOREIGN_FORMAT[found]
        if found == ct.NODECONFIG and family == ct.AL2023:
            hint = "\nhelp: give the part `Content-Type: application/node.eks.aws`"
        elif analysis.family_source == "default":
            hint = f"\nhelp: set spec.amiFamily (it defaults to {family}, whatever AMI amiSelector picks)"
        else:
            hint = "\nhelp: write this family's format, or select the family that reads it"
        unset = " (amiFamily is not set)" if analysis.family_source == "default" else ""
        body = part.view.text
        first = len(body) - len(body.lstrip())
        line_end = body.find("\n", first)
        yield ctx.at(res, res.doc, part.view.span(first, line_end if line_end >= 0 else len(body)),
                     f"{what} in {family} userData{unset}{hint}\nnote: {runs}, and it fails; {reader}")


# --------------------------------------------------------------------------------------------- Windows


@rule("KPL250", "windows-userdata-bootstrap", category="userdata", severity="warning",
      summary="Windows userData with <powershell> tags or its own Start-EKSBootstrap.ps1 call (Karpenter adds both)",
      kinds=KINDS)
def windows_userdata_bootstrap(res, ctx):
    analysis = userdata_analysis(res, ctx)
    if analysis is None or not ct.is_windows(analysis.family):
        return
    text = analysis.text
    for issue in windows.check(text.text):
        yield ctx.at(res, res.doc, text.span(issue.start, issue.end), issue.message)


# --------------------------------------------------------------------------------------------- fix helper


def unregistered_taint_fix(res) -> Fix | None:
    """An unsafe fix adding `karpenter.sh/unregistered:NoExecute` to the last block-style
    `kubelet.config.registerWithTaints` list of the NodeConfigs in `res`'s userData (for the Custom-family rule).
    None when there is no such list, the userData is not a literal `|` block (no exact positions), or it already
    has the taint."""
    analysis = analyze(res) if res.group == "karpenter.k8s.aws" else None  # (its caller judged `res`)
    if analysis is None or not analysis.text.exact:
        return None
    path = ("spec", "kubelet", "config", "registerWithTaints")
    candidates = [(part, doc) for part in analysis.parts if part.kind == ct.NODECONFIG
                  for doc in nodeconfig_docs(part) if not doc.fatal and doc.exists(path)]
    if not candidates:
        return None
    part, doc = candidates[-1]
    found = nodeadm.unregistered_taint_insertion(part.view.text, doc)
    if found is None:
        return None
    offset, insertion = found
    view = part.view
    file_at = view.file_offset(offset)
    if file_at is None:
        return None
    src = view.source
    line_start = src.text.rfind("\n", 0, file_at) + 1
    block_indent = src.text[line_start:file_at]
    if block_indent.strip():
        return None
    lines = insertion.split("\n")  # last element is "" (insertion ends with a newline)
    nl = "\r\n" if src.text[max(0, line_start - 2):line_start] == "\r\n" else "\n"  # keep CRLF files CRLF
    text = lines[0] + nl + "".join(block_indent + ln + nl for ln in lines[1:-1]) + block_indent
    return Fix(f"add {UNREGISTERED} to kubelet.config.registerWithTaints", "unsafe", (Edit(file_at, file_at, text),))
