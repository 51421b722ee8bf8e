"""`karplint render PATH [--nodeclass NAME] [--nodepool NAME]`: print, per EC2NodeClass, the userData Karpenter
renders, the kubelet argv, and the taints and labels the node registers with (`karplint.userdata.render`)."""

from __future__ import annotations

import json

from karplint.model import Model
from karplint.userdata.render import RenderedNode, pairs, render_node
from karplint.userdata import content as ct
from karplint.model.versions import Version

_LEXER = {ct.AL2: "bash", ct.UBUNTU: "bash", ct.AL2023: "yaml", ct.BOTTLEROCKET: "toml", ct.CUSTOM: "text"}


def print_rendered(node: RenderedNode, console) -> None:
    from rich.rule import Rule
    from rich.text import Text

    from karplint.report import escape

    def _t(text: str, style: str | None = None) -> Text:  # names, userData, argv: untrusted (escape.py)
        return Text(escape.name(text), style=style or "")

    nc, np = node.nodeclass, node.nodepool
    title = f"EC2NodeClass/{nc.name} ({node.family or 'unknown family'})"
    if np is not None:
        title += f" + NodePool/{np.name}"
    console.print(Rule(_t(title, style="bold")))
    where = f"{nc.doc.path}:{nc.doc.start.line if nc.doc.start else 1}"
    console.print(_t(where, style="dim"))
    for note in node.notes:
        console.print(_t("note: " + note, style="yellow"))
    if node.merged.text is not None:
        console.print(_t("userData Karpenter renders:", style="bold"))
        # one print for the block: rich's cost per call is ~0.3 ms, per line of one Text far less
        console.print(Text("\n".join(escape.name("  " + line) for line in node.merged.text.rstrip("\n").split("\n"))),
                      soft_wrap=True)
    console.print(_t("kubelet argv:", style="bold"))
    if node.kubelet_argv is None:
        console.print(_t("  (unknown)"))
    else:
        for w in node.kubelet_argv:
            console.print(_t("  " + w), soft_wrap=True)
    if node.kubelet_config:
        console.print(_t("kubelet configuration set through userData:", style="bold"))
        for k in sorted(node.kubelet_config):
            console.print(_t(f"  {k}: {json.dumps(node.kubelet_config[k])}"), soft_wrap=True)
    console.print(_t("registers with taints:", style="bold") + _t(
        f" ({node.taints_source})" if node.taints_source else "", style="dim"), soft_wrap=True)
    if node.taints is None:
        console.print(_t("  (unknown)"))
    elif not node.taints:
        console.print(_t("  (none)"))
    else:
        for t in node.taints:
            console.print(_t(f"  {t}"))
    console.print(_t("registers with labels:", style="bold"))
    if node.labels is None:
        console.print(_t("  (unknown)"))
    elif not node.labels:
        console.print(_t("  (none)"))
    else:
        for k in sorted(node.labels):
            console.print(_t(f"  {k}={node.labels[k]}"))
    console.print()


def render_model(model: Model, console, *, nodeclass: str | None = None, nodepool: str | None = None,
                 karpenter_version: Version | None = None, shows=None, version_of=None) -> int:
    """Print every selected (EC2NodeClass, NodePool) pair; returns the exit code (1: nothing matched).
    `shows(resource)`: whether a resource was named (a pair is shown when either of its objects was; the others
    are the project's context); `version_of(display)`: the Karpenter release the project deploys for a file."""
    selected = pairs(model, nodeclass, nodepool)
    if shows is not None:
        selected = [(nc, np) for nc, np in selected if shows(nc) or (np is not None and shows(np))]
    if not selected:
        what = []
        if nodeclass:
            what.append(f"EC2NodeClass {nodeclass!r}")
        if nodepool:
            what.append(f"NodePool {nodepool!r}")
        console.print(f"karplint render: no {' with '.join(what) or 'EC2NodeClass'} found", markup=False)
        return 1
    for nc, np in selected:
        version = karpenter_version
        if version is None and version_of is not None:
            version = version_of(str(nc.doc.path))
        try:
            node = render_node(nc, np, version)
        except Exception as exc:  # never a traceback: say what failed and go on
            console.print(f"karplint render: EC2NodeClass/{nc.name}: internal error ({type(exc).__name__}: {exc})",
                          markup=False)
            continue
        print_rendered(node, console)
    return 0


def render_command(paths: list[str], *, nodeclass: str | None = None, nodepool: str | None = None,
                   karpenter_version: str | None = None, console=None) -> int:
    """Load `paths` (files, directories, `-` for stdin) and render; returns the exit code."""
    from karplint.cli.inputs import load_model
    from karplint.report import escape

    console = console or escape.console(soft_wrap=True)  # no wrapping: long lines stay greppable
    err = escape.console(stderr=True, soft_wrap=True)
    version = None
    if karpenter_version:
        try:
            version = Version.parse(karpenter_version)
        except ValueError as exc:
            err.print(f"karplint render: --karpenter-version: {exc}", markup=False)
            return 2
        from karplint.model.versions import implausible

        why = implausible(version)  # as `check` refuses it: a typo would render for a release that never existed
        if why:
            err.print(f"karplint render: --karpenter-version: {escape.name(why)}", markup=False)
            return 2
    loaded = load_model(paths, err, "render")
    if loaded is None:
        return 2
    return render_model(loaded.model, console, nodeclass=nodeclass, nodepool=nodepool, karpenter_version=version,
                        shows=loaded.shows, version_of=loaded.karpenter_version)
