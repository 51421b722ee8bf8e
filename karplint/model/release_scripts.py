"""Karpenter releases pinned in text: shell scripts, Makefiles, `.env` files, CI variables, Markdown and AsciiDoc
docs, `.tfvars` and Terragrunt inputs (any file, read as lines).

Two forms, each with its file and line:

* a variable whose name says it is Karpenter's version (`KARPENTER_VERSION`, `karpenter_chart_version`,
  `karpenterVersion`, `KARPENTER_CRD_VERSION`), assigned an exact version at the start of a line:
  `export KARPENTER_VERSION="1.0.6"`, `KARPENTER_VERSION ?= v0.37.0`, `KARPENTER_VERSION: 1.0.6`,
  `karpenter_version = "1.0.8"`, `KARPENTER_VERSION="${KARPENTER_VERSION:-1.0.6}"`;
* a `helm install|upgrade|template` command of the karpenter or karpenter-crd chart with `--version 1.0.6`, or with
  `--version "${NAME}"` where NAME is assigned an exact version earlier in the same file (the line of that
  assignment is the evidence). Karpenter's getting-started guide writes both
  (https://github.com/aws/karpenter-provider-aws, website/content/en/*/getting-started).

A third form is code: the `version` of an EKS Blueprints CDK `new blueprints.addons.KarpenterAddOn({version: ...})`
or of a cdk-eks-karpenter `new Karpenter(this, "id", {version: ...})`, before any nested object of its properties.

Only exact versions count. The `--version` of another chart, a `kubectl`/`eksctl` version, a commented-out line
and a variable without an exact value pin nothing.
"""

from __future__ import annotations

import re

from karplint.model.release_evidence import Evidence, LineNumbers as _Lines, exact, is_karpenter_chart

MAX_COMMANDS = 200  # helm commands read per file (a generated doc could repeat thousands)
MAX_PINS = 100  # evidence kept per file: more says nothing new and would only grow every later step
MAX_COMMAND_CHARS = 1 << 13  # one command with its continuation lines
MAX_WHAT = 80

# A name that says it is Karpenter's release (chart or CRD chart): KARPENTER_VERSION, karpenter_chart_version, ...
# but not `karpenter-version`, karplint's own setting (a configuration example in documentation deploys nothing).
PIN_NAME = re.compile(r"(?i)(?!karpenter-version\Z)karpenter[_-]?(?:crds?[_-]?)?(?:helm[_-]?)?(?:chart[_-]?)?version")
# `[export ]NAME = value` at the start of a line (shell, Makefile, .env, Dockerfile ENV, YAML, HCL, JSON keys), after
# an optional prompt (`$ `) or list marker; the value is the whole rest of the line but a comment or a trailing comma.
_ASSIGN = re.compile(
    r"""^[ \t]*(?:\$[ \t]+)?(?:-[ \t]+)?(?:(?:export|readonly|local|ENV|ARG)[ \t]+|declare(?:[ \t]+-\w+)*[ \t]+)?"""
    r"""(?P<kq>["']?)(?P<name>[A-Za-z_][A-Za-z0-9_-]*)(?P=kq)[ \t]*(?:\?=|::?=|:|=)[ \t]*"""
    r"""(?P<q>["']?)(?P<value>[^"'\s,;#]*)(?P=q)[ \t]*[,;]?[ \t]*(?:\#.*)?\r?$""", re.M)
_DEFAULTED = re.compile(r"^\$\{\w+:?-([^}]*)\}$")  # ${NAME:-1.0.6}: the value when NAME is unset
_REFERENCE = re.compile(r"^\$(?:\{(\w+)(?::?-([^}]*))?\}|\((\w+)\)|(\w+))$")  # $NAME ${NAME} ${NAME:-x} $(NAME)
_HELM = re.compile(r"(?<![\w./-])helm[ \t]+(upgrade|install|template)(?![\w-])")
# CDK constructs whose `version` property is the chart's: the properties object up to its first nested object.
_CDK = re.compile(r"""(KarpenterAddOn|new[ \t]+Karpenter)[ \t]*\([^{}()]{0,200}\{[^{}]{0,2000}?"""
                  r"""(?<![\w.])version[ \t]*:[ \t]*(["'`])([^"'`\n]{1,64})\2""")
_STOP = ("&&", "||", ";", "|", ">", ">>", "2>", "2>&1", ")", "`")
# helm flags that take a value as the next word (the others are switches); `--kube-version` is Kubernetes'.
_VALUED = frozenset((
    "-n", "--namespace", "--set", "--set-string", "--set-file", "--set-json", "--set-literal", "-f", "--values",
    "--repo", "--timeout", "--kube-context", "--kubeconfig", "--post-renderer", "--post-renderer-args", "--username",
    "--password", "--description", "--history-max", "-o", "--output", "--output-dir", "--registry-config",
    "--repository-config", "--repository-cache", "--ca-file", "--cert-file", "--key-file", "--keyring", "-a",
    "--api-versions", "--kube-version", "-s", "--show-only", "--kube-apiserver", "--kube-token", "--kube-as-user",
    "--kube-as-group", "--kube-ca-file", "--burst-limit", "--qps", "-l", "--labels", "--name-template", "--version",
))


# The bytes of a pin name (any case) or a helm command: files without them are not decoded.
_PIN_BYTES = re.compile(rb"[Kk][Aa][Rr][Pp][Ee][Nn][Tt][Ee][Rr][_-]?(?:[Cc][Rr][Dd][Ss]?[_-]?)?"
                        rb"(?:[Hh][Ee][Ll][Mm][_-]?)?(?:[Cc][Hh][Aa][Rr][Tt][_-]?)?[Vv][Ee][Rr][Ss][Ii][Oo][Nn]")


def might_pin(raw: bytes) -> bool:
    """Whether `text_evidence` can find anything in a file of these bytes (which mention karpenter)."""
    return ((b"helm" in raw and b"--version" in raw) or b"KarpenterAddOn" in raw or b"new Karpenter" in raw
            or _PIN_BYTES.search(raw) is not None)


def _value(raw: str) -> str | None:
    m = _DEFAULTED.match(raw)
    return exact(m.group(1) if m else raw)


def _command(text: str, start: int) -> str:
    """The command starting at `start`: its line and the lines its trailing backslashes continue onto."""
    end = start
    limit = min(len(text), start + MAX_COMMAND_CHARS)
    while end < limit:
        nl = text.find("\n", end, limit)
        if nl < 0:
            return text[start:limit]
        if text[end:nl].rstrip("\r").endswith("\\"):
            end = nl + 1
            continue
        return text[start:nl]
    return text[start:limit]


def _words(command: str) -> list[str]:
    """The words of a command: split at blanks, a quoted part with blanks in it joined again (one pass, no regex that
    could backtrack on an unclosed quote)."""
    out: list[str] = []
    open_quote = None
    for word in command.split():
        if open_quote is not None:
            out[-1] += " " + word
        else:
            out.append(word)
        for ch in word:
            if ch in "\"'":
                open_quote = ch if open_quote is None else (None if ch == open_quote else open_quote)
    return out


def _unquote(word: str) -> str:
    return word.replace('"', "").replace("'", "")


def _parse_helm(command: str) -> tuple[str | None, str | None, str | None]:
    """(chart, version as written, --repo) of `helm <sub> ...` (the words after the subcommand), or Nones."""
    positionals: list[str] = []
    version = repo = None
    words = _words(command)[2:]
    i = 0
    while i < len(words):
        word = words[i]
        if word == "\\":
            i += 1
            continue
        if word in _STOP or word.startswith(("#", ">", "2>", "|", "&")):
            break
        ends = word.endswith(";")
        word = _unquote(word.rstrip(";"))
        if word.startswith("-"):
            name, eq, val = word.partition("=")
            while not eq and name in _VALUED and i + 1 < len(words) and words[i + 1] == "\\":
                i += 1  # (`--version \` then the value on the next line)
            if not eq and name in _VALUED and i + 1 < len(words):
                i += 1
                val = _unquote(words[i].rstrip(";"))
                ends = ends or words[i].endswith(";")
            if name == "--version":
                version = val
            elif name == "--repo":
                repo = val
        else:
            positionals.append(word)
        if ends:
            break
        i += 1
    # `helm install [NAME] CHART`, `helm upgrade RELEASE CHART`, `helm template [NAME] CHART`: the chart comes last.
    if not 1 <= len(positionals) <= 2:
        return None, None, None
    return positionals[-1], version, repo


def text_evidence(display: str, text: str) -> list[Evidence]:
    """The Karpenter releases a text file pins (see the module docstring), in order of their lines."""
    out: list[tuple[int, Evidence]] = []
    lines = _Lines(text)
    assigned: dict[str, list[tuple[int, str | None]]] = {}  # name -> [(position, exact value or None)]
    for m in _ASSIGN.finditer(text):
        name, value = m.group("name"), _value(m.group("value"))
        assigned.setdefault(name, []).append((m.start(), value))
        if value is not None and len(out) < MAX_PINS and PIN_NAME.fullmatch(name):
            out.append((m.start(), Evidence(value, display, lines.at(m.start("value")), name)))
    for count, m in enumerate(_HELM.finditer(text)):
        if count >= MAX_COMMANDS:
            break
        chart, version, repo = _parse_helm(_command(text, m.start()))
        if chart is None or version is None or not is_karpenter_chart(chart):
            continue
        if "/" not in chart and "karpenter" not in (repo or ""):
            continue  # (a bare `karpenter` is a directory unless --repo names Karpenter's)
        what = f"helm {m.group(1)} {chart}"[:MAX_WHAT]
        ref = _REFERENCE.match(version)
        if ref is None:
            v = exact(version)
            if v is not None:
                pos = text.find("--version", m.start())
                out.append((pos, Evidence(v, display, lines.at(pos), f"{what} --version")))
            continue
        name = ref.group(1) or ref.group(3) or ref.group(4)
        earlier = [(pos, value) for pos, value in assigned.get(name, ()) if pos < m.start()]
        if earlier and earlier[-1][1] is not None:
            if PIN_NAME.fullmatch(name):
                continue  # (that assignment is evidence already)
            pos, value = earlier[-1]
            out.append((pos, Evidence(value, display, lines.at(pos), f"{name} for {what}")))
        elif not earlier and ref.group(2) is not None and exact(ref.group(2)) is not None:
            pos = text.find("--version", m.start())  # ${NAME:-1.0.6} with NAME set nowhere in the file
            out.append((pos, Evidence(exact(ref.group(2)), display, lines.at(pos), f"{what} --version")))
    if ("KarpenterAddOn" in text or "new Karpenter" in text):
        for count, m in enumerate(_CDK.finditer(text)):
            v = exact(m.group(3))
            if count >= MAX_COMMANDS:
                break
            if v is not None:
                what = "KarpenterAddOn version" if m.group(1) == "KarpenterAddOn" else "new Karpenter version"
                out.append((m.start(3), Evidence(v, display, lines.at(m.start(3)), what)))
    out.sort(key=lambda pe: pe[0])
    return [e for _pos, e in out[:MAX_PINS]]
