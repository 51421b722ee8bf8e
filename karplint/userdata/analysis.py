"""What one EC2NodeClass's userData analysis holds (`karplint.userdata.model.analyze` computes it): the parts, the
bootstrap.sh calls with the kubelet argv they produce, and what could not be analysed. Data only, below both the
analysis (model.py) and the part analysers (analysers.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from karplint.readers.source import Span
from karplint.userdata import content as ct
from karplint.userdata.bootstrap import BootstrapCall
from karplint.userdata.kubelet import KubeletFlags, Label, LabelError, Taint, TaintError
from karplint.userdata.mime import MimeDocument
from karplint.userdata.shell import ShellScript, Word
from karplint.userdata.systemd import ExtraArgsResult
from karplint.userdata.text import UserDataText


@dataclass
class Note:
    """Something the analysis could not do or verify (reported as an info finding)."""

    kind: str  # "shell-parse", "dynamic", "unknown-content", ...
    message: str
    span: Span


@dataclass
class Part:
    index: int | None  # MIME part index, None for non-MIME userData
    kind: str  # content kind (karplint.userdata.content)
    content_type: str  # MIME media type ("" for non-MIME)
    view: UserDataText  # the part body (positions map to the manifest)
    script: ShellScript | None = None
    # filled by part analysers (nodeadm, Bottlerocket) or by the shell path below
    registered_taints: list[Taint] | None = None
    registered_taints_span: Span | None = None
    node_labels: list[Label] | None = None
    data: dict = field(default_factory=dict)
    aborts: tuple[str, int] | None = None  # shell: where bash aborts the script (why, offset in the part)


@dataclass
class KubeletWord:
    """One kubelet argv word produced from userData, with the view offsets of each of its characters."""

    value: str
    offsets: list[int]  # offsets in `view` (the shell part) of each character's source
    view: UserDataText
    dynamic: bool = False

    def span(self, i: int = 0, j: int | None = None) -> Span:
        if not self.offsets:
            return self.view.span(0, 0)
        j = len(self.value) if j is None else j
        i = max(0, min(i, len(self.offsets) - 1))
        j = max(i + 1, min(j, len(self.offsets)))
        lo, hi = min(self.offsets[i:j]), max(self.offsets[i:j]) + 1
        return self.view.span(lo, hi)


@dataclass
class BootstrapAnalysis:
    part: Part
    call: BootstrapCall
    extra_args: Word | None  # the word that becomes KUBELET_EXTRA_ARGS
    systemd: ExtraArgsResult | None  # how systemd 219 splits it (None: no value or dynamic)
    kubelet_argv: list[KubeletWord] = field(default_factory=list)
    flags: KubeletFlags | None = None
    taints: list[Taint] | None = None  # effective --register-with-taints (last wins); None if not given/unknown
    taint_word: KubeletWord | None = None  # the word holding the effective taint value
    taint_value_offset: int = 0  # where the value starts inside taint_word
    taint_errors: list[TaintError] = field(default_factory=list)  # of the effective (last) value
    # every --register-with-taints occurrence: (word, value offset in word, value, errors). pflag calls Set() for
    # each occurrence, so an invalid earlier value still makes the kubelet exit although the last one wins.
    taint_uses: list[tuple[KubeletWord, int, str, list[TaintError]]] = field(default_factory=list)
    labels: list[tuple[KubeletWord, int, Label]] = field(default_factory=list)
    label_errors: list[tuple[KubeletWord, int, LabelError]] = field(default_factory=list)
    unverifiable: bool = False  # the extra args contain expansions we could not resolve
    kubelet_fails: bool = False  # kubelet exits (bad flag value) or systemd cannot exec it
    # minor-independent kubelet flag verdicts (unknown names, values pflag rejects): `kubelet_flags.FlagProblem`s
    flag_problems: list = field(default_factory=list)
    # for a dynamic value: the flags its literal text names (values unknown), for rules that only need flag names
    flag_names_only: KubeletFlags | None = None
    # bootstrap.sh's own checks after option parsing that exit 1 before the kubelet is configured
    validation_failures: list = field(default_factory=list)
    # bash never runs this call: (why, offset in the part of the cause) — a "bad substitution" in one of its words
    # skips the command; an unbound variable under `set -u` earlier aborts the script
    never_runs: tuple[str, int] | None = None
    # variables the script never assigns, expanded to nothing in the extra args (`environment.EmptyExpansion`)
    empty_expansions: list = field(default_factory=list)
    # a `KUBELET_EXTRA_ARGS=...` before this call that bootstrap.sh never sees (not exported): shell `Assignment`
    unexported_extra_args: object | None = None

    @property
    def no_kubelet(self) -> bool:
        """The node gets no kubelet from this call: bash never runs it, or bootstrap.sh exits 1."""
        return self.never_runs is not None or self.bootstrap_exits

    @property
    def bootstrap_exits(self) -> bool:
        """bootstrap.sh exits 1 (help, missing value at the end, no cluster name, its own checks): no kubelet."""
        c = self.call
        return bool(c.aborts_at is not None or c.help is not None or self.validation_failures
                    or (c.cluster_name is None and not any(w.splits for w in c.args)))

    @property
    def view(self) -> UserDataText:
        return self.part.view

    def span(self, word: Word, i: int | None = None, j: int | None = None) -> Span:
        """Manifest span of a shell word, or of value[i:j] inside it."""
        if i is None:
            return self.view.span(word.start, word.end)
        lo, hi = word.value_span(i, j if j is not None else i + 1)
        return self.view.span(lo, hi)

    @property
    def command_span(self) -> Span:
        cmd = self.call.cmd
        return self.view.span(cmd.start, cmd.end)


@dataclass
class UserDataAnalysis:
    text: UserDataText
    family: str | None
    family_source: str
    content: ct.Content
    ami_os: str | None = None  # the family of an alias AMI (Custom + `alias: bottlerocket@latest` -> Bottlerocket)
    mime: MimeDocument | None = None
    parts: list[Part] = field(default_factory=list)
    bootstraps: list[BootstrapAnalysis] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    budget: FileBudget | None = field(default=None, repr=False)  # the file's userData budget, while analysing
    # the manifest has template holes outside the userData (envsubst, Terraform, Helm): a variable the script
    # never assigns may be filled in before the file is applied
    templated: bool = False

    @property
    def shell_parts(self) -> list[Part]:
        return [p for p in self.parts if p.script is not None]

    @property
    def last_bootstrap(self) -> BootstrapAnalysis | None:
        """The bootstrap.sh call that configures the kubelet last (its drop-in is the one in effect)."""
        return self.bootstraps[-1] if self.bootstraps else None

    @property
    def kubelet_argv(self) -> list[str] | None:
        """The extra kubelet argv of the last bootstrap.sh call after systemd 219 (None: unknown or no call)."""
        ba = self.last_bootstrap
        if ba is None or ba.unverifiable or ba.flags is None:
            return None
        return [w.value for w in ba.kubelet_argv]

    @property
    def registered_taints(self) -> tuple[list[Taint] | None, Part | None]:
        """(taints the node's kubelet registers, the part that decides) for userData Karpenter does not merge.

        Later parts win (nodeadm merges NodeConfigs in order; the last bootstrap.sh call starts the kubelet)."""
        found: tuple[list[Taint] | None, Part | None] = (None, None)
        for p in self.parts:
            if p.registered_taints is not None:
                found = (p.registered_taints, p)
        return found


@dataclass
class FileBudget:
    """The userData work already spent on one file, charged in document order (the rules visit EC2NodeClasses so)."""

    analysed: int = 0  # bytes of userData analysed
    parser: int = 0  # bytes of shell handed to bashlex
