"""Apply the `Fix`es of a check, in passes, without ever damaging a file.

    fix_inputs(inputs, config, unsafe=...) -> FixOutcome   (nothing written)
    write_fixes(outcome) -> list of files that could not be written (original kept)
    unified_diff(outcome) -> str                            (`patch -p1` / `git apply` applies it)
    run_fixes(...)                                          what `karplint check --fix/--diff` does

A pass runs the whole check on the current texts (rules may look across files), takes the applicable fixes
of every finding (safe ones; unsafe ones too with `unsafe`, except in files with YAML anchors, where an edit
under an anchor would change every alias of it), applies per file every fix whose edits overlap
no edit already taken in this pass (the others wait for the next pass, which re-checks the new text), and
repeats until no fix changes anything (at most `MAX_PASSES`). Bytes outside the edited spans are never
touched: edits are applied to the decoded text, which is re-encoded with the file's encoding and BOM.

A file is left exactly as it was, with a note, when its fixed text would not parse as YAML with the same
number of documents, when the passes do not converge, or when it cannot be written (read-only file or
directory, changed on disk during the run). Files with input problems (syntax error, undecodable, too
large) are never fixed. Writes are atomic (karplint/safe_write.py: temporary file in the same directory,
fsync, rename; owner, group and mode bits kept) and never cut short by Ctrl-C; a symlink is followed and its
target replaced; a file with several hard links is left unchanged, with a note.
"""

from __future__ import annotations

import codecs
import difflib
import os
import stat
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, TextIO

from karplint.config import Config
from karplint.engine import InputFile, Report, check, load_any, read_regular
from karplint.engine import check as run_check
from karplint.findings import Edit, Finding, Fix
from karplint.readers.loader import Problem, _yaml, _yaml_text
from karplint.readers.source import SourceFile
from karplint.safe_write import interrupts_deferred, replace_file
from karplint.wording import counted

MAX_PASSES = 10
UNFIXABLE_INPUT = {"KPL001", "KPL002", "KPL003", "KPL004", "KPL006"}

_BOM = {
    "utf-8": codecs.BOM_UTF8, "utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE,
}


@dataclass
class FileFix:
    display: str
    abspath: str | None  # None: stdin
    original: bytes
    source: SourceFile  # the original, decoded
    text: str  # the fixed text (== source.text when nothing applies)
    applied: Counter = field(default_factory=Counter)  # (code, description) -> times applied
    error: str | None = None  # why the fixes were not kept

    @property
    def changed(self) -> bool:
        return self.error is None and self.text != self.source.text

    @property
    def count(self) -> int:
        return sum(self.applied.values()) if self.changed else 0

    def encoded(self) -> bytes:
        return encode(self.text, self.source)


@dataclass
class FixOutcome:
    report: Report  # findings that remain (checked on the fixed texts)
    files: list[FileFix]
    notes: list[str] = field(default_factory=list)
    inputs: list[InputFile] = field(default_factory=list)
    extra_problems: list = field(default_factory=list)
    before: Report | None = None  # the findings before any fix

    def uncovered(self) -> list[Finding]:
        """Findings the fixes brought to light: after, and not before (by file, code and headline; lines move)."""
        from collections import Counter

        if self.before is None:
            return []
        seen = Counter((f.file, f.code, f.parts[0]) for f in self.before.findings)
        out = []
        for f in self.report.findings:
            key = (f.file, f.code, f.parts[0])
            if seen[key]:
                seen[key] -= 1
            else:
                out.append(f)
        return out

    @property
    def changed(self) -> list[FileFix]:
        return [f for f in self.files if f.changed]

    @property
    def fixed(self) -> int:
        return sum(f.count for f in self.files)


def encode(text: str, src: SourceFile) -> bytes:
    return (_BOM.get(src.encoding, b"") if src.bom else b"") + text.encode(src.encoding)


def applicable(f: Finding, unsafe: bool) -> bool:
    return f.fix is not None and bool(f.fix.edits) and (f.fix.safety == "safe" or unsafe)


def document_count(text: str, path: str | None = None) -> int | None:
    """How many YAML documents `text` holds, or None when it does not parse (`path`: a host file such as a
    `.tf` or `.md` counts the documents of its embedded regions)."""
    from karplint.engine.files import _host_kind

    if path is not None and _host_kind(path) is not None:
        from karplint.readers.embedded import document_count as embedded_count

        return embedded_count(path, text)
    try:
        return sum(1 for _ in _yaml().compose_all(_yaml_text(text)))
    except Exception:  # noqa: BLE001 - any parser failure means "does not parse"
        return None


def _has_anchors(text: str) -> bool:
    from karplint.fix.yamledit import _anchor_offsets

    return "&" in text and bool(_anchor_offsets(text))


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end and b.start == b.end:
        return a.start == b.start  # two insertions at one point: their order would be a guess
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end


def select_fixes(findings: Iterable[Finding], text: str) -> tuple[list[tuple[Finding, Fix]], int]:
    """The fixes to apply together to one text: in order of position, skipping (for the next pass) those
    that overlap one already taken, and ignoring exact duplicates. Returns (taken, deferred count)."""
    taken: list[tuple[Finding, Fix]] = []
    edits: list[Edit] = []
    seen: set[tuple] = set()
    deferred = 0
    cands = sorted(findings, key=lambda f: (min(e.start for e in f.fix.edits), f.code, f.message))
    for f in cands:
        fx = f.fix
        key = tuple(sorted(fx.edits, key=lambda e: (e.start, e.end, e.replacement)))
        if key in seen:
            taken.append((f, fx))  # the same edits as a fix already taken: fixed by it
            continue
        own = sorted(fx.edits, key=lambda e: (e.start, e.end))
        if any(not (0 <= e.start <= e.end <= len(text)) for e in own) or \
                any(_overlaps(a, b) for i, a in enumerate(own) for b in own[i + 1:]):
            continue  # a broken fix: never applied
        if any(_overlaps(a, b) for a in own for b in edits):
            deferred += 1
            continue
        seen.add(key)
        edits.extend(own)
        taken.append((f, fx))
    return taken, deferred


def apply(text: str, fixes: Iterable[Fix]) -> str:
    edits: dict[tuple, Edit] = {}
    for fx in fixes:
        for e in fx.edits:
            edits[(e.start, e.end, e.replacement)] = e
    out, pos = [], 0
    for e in sorted(edits.values(), key=lambda e: (e.start, e.end)):
        out.append(text[pos:e.start])
        out.append(e.replacement)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


def _inputs_for(inputs: list[InputFile], files: dict[str, FileFix]) -> list[InputFile]:
    out = []
    for item in inputs:
        ff = files.get(item.display)
        if ff is not None and ff.error is None:
            out.append(InputFile(item.display, item.abspath, encode(ff.text, ff.source)))
        elif ff is not None:
            out.append(InputFile(item.display, item.abspath, ff.original))
        else:
            out.append(item)
    return out


def fix_inputs(inputs: list[InputFile], config: Config, *, unsafe: bool = False,
               extra_problems: list[tuple[str, Problem]] = (), max_passes: int = MAX_PASSES,
               jobs: int = 1, cache=None, context: list[InputFile] = ()) -> FixOutcome:
    """Compute the fixed texts of `inputs` (nothing is written). `jobs`/`cache` as for `engine.check` (the
    passes after the first re-check every file; the cache makes the unchanged ones cheap). `context`: the
    project's other files (`karplint.project`), read by every pass as the check reads them, never fixed."""

    def check(items, config, extra_problems=()):
        return run_check(items, config, extra_problems=extra_problems, jobs=jobs, cache=cache, context=context)

    # Read every file once: the bytes we fix are the bytes we compare against before writing.
    base: list[InputFile] = []
    for item in inputs:
        if item.data is None and item.abspath is not None and os.path.isfile(item.abspath):
            try:  # (never open a FIFO or device here: the check reports those)
                data = read_regular(item.abspath, config.max_file_size)
                base.append(InputFile(item.display, item.abspath, data))
            except OSError:
                base.append(item)  # the check reports it
        else:
            base.append(item)
    report = initial = check(base, config, extra_problems=extra_problems)
    files: dict[str, FileFix] = {}
    broken = {f.file for f in report.findings if f.code in UNFIXABLE_INPUT}
    for item in base:
        src = report.sources.get(item.display)
        if src is None or item.data is None or item.display in broken:
            continue
        if not any(applicable(f, unsafe) and f.file == item.display for f in report.findings):
            continue
        try:  # input problems hidden by the rule selection still make a file unfixable
            problems = load_any(src)[1]
        except Exception:  # noqa: BLE001
            continue
        if not any(p.code in UNFIXABLE_INPUT for p in problems):
            files[item.display] = FileFix(item.display, item.abspath, item.data, src, src.text)
    notes: list[str] = []
    history: dict[str, set[str]] = {d: {ff.text} for d, ff in files.items()}
    for n in range(max_passes + 1):
        by_file: dict[str, list[Finding]] = {}
        for f in report.findings:
            if applicable(f, unsafe) and f.file in files and files[f.file].error is None:
                if f.fix.safety == "unsafe" and _has_anchors(files[f.file].text):
                    continue  # an edit under an anchor changes every alias of it: behaviour elsewhere
                by_file.setdefault(f.file, []).append(f)
        changed = False
        for display, findings in by_file.items():
            ff = files[display]
            taken, _ = select_fixes(findings, ff.text)
            new = apply(ff.text, (fx for _, fx in taken))
            if new == ff.text:
                continue
            if n == max_passes:
                ff.error = f"fixes did not settle after {max_passes} passes"
                continue
            before = document_count(ff.text, display)
            after = document_count(new, display)
            if after is None or after != before:
                what = "would not parse as YAML" if after is None else \
                    f"would hold {after} YAML documents instead of {before}"
                codes = ", ".join(sorted({f.code for f, _ in taken}))
                ff.error = f"the fixed text {what} (fixes of {codes}); please report this"
                continue
            if new in history[display]:
                ff.error = "fixes undo each other (a cycle); please report this"
                continue
            history[display].add(new)
            for f, fx in taken:
                ff.applied[(f.code, fx.description)] += 1
            ff.text = new
            changed = True
        if not changed:
            break
        report = check(_inputs_for(base, files), config, extra_problems=extra_problems)
    if any(ff.error for ff in files.values()):
        report = check(_inputs_for(base, files), config, extra_problems=extra_problems)
    for ff in files.values():
        if ff.error:
            ff.text = ff.source.text
            notes.append(f"{ff.display}: fixes not applied, file left unchanged: {ff.error}")
    return FixOutcome(report, list(files.values()), notes, base, list(extra_problems), before=initial)


# ---------------------------------------------------------------------------------------------- writing

class WriteError(Exception):
    pass


def _writable(path: str) -> str | None:
    """Why `path` cannot be replaced, or None."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError as exc:
        return exc.strerror or str(exc)
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if not os.access(real, os.W_OK) or not st.st_mode & 0o222:  # no write bit: read-only, even for root
        return "file is read-only"
    if not os.access(os.path.dirname(real) or ".", os.W_OK | os.X_OK):
        return "its directory is not writable"
    return None


def atomic_write(path: str, data: bytes, expected: bytes | None = None) -> None:
    """Replace the contents of `path` (a symlink's target) atomically, keeping its owner, group and mode bits
    (setuid, setgid and sticky included) where permitted. With `expected`, refuse when the file no longer holds
    those bytes (changed during the run). Refused too: a file with several hard links, since the new file
    would carry one name only and the others would keep the old text; writing in place through the shared
    inode would keep them together but give up atomicity, and change a file whose other names may lie outside
    the checked tree. Ctrl-C waits until the file is in place."""
    real = os.path.realpath(path)
    why = _writable(real)
    if why:
        raise WriteError(why)
    with interrupts_deferred():
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:
            raise WriteError(exc.strerror or str(exc)) from exc
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise WriteError("not a regular file")
            if st.st_nlink > 1:
                raise WriteError(f"it has {st.st_nlink} hard links, and a new file would leave the other names "
                                 "with the old text; apply the fixes by hand (see --diff)")
            if expected is not None and fh.read(len(expected) + 1) != expected:
                raise WriteError("file changed on disk during the run")
        try:
            replace_file(real, lambda out: out.write(data), like=st, durable=True,
                         prefix="." + os.path.basename(real) + ".", suffix=".karplint~")
        except OSError as exc:
            raise WriteError(exc.strerror or str(exc)) from exc


def write_fixes(outcome: FixOutcome, config: Config) -> list[str]:
    """Write every changed file (not stdin). A file that cannot be written keeps its original bytes, its
    findings are restored in `outcome.report`, and a note names it. Returns the notes."""
    failed: list[str] = []
    for ff in outcome.changed:
        if ff.abspath is None:
            continue
        try:
            atomic_write(ff.abspath, ff.encoded(), expected=ff.original)
        except WriteError as exc:
            note = f"{ff.display}: {ff.count} fix(es) not applied, file left unchanged: {exc}"
            ff.error = f"cannot write: {exc}"
            ff.text = ff.source.text
            failed.append(note)
            outcome.notes.append(note)
    if failed:
        outcome.report = check(_inputs_for(outcome.inputs, {f.display: f for f in outcome.files}), config,
                               extra_problems=outcome.extra_problems)
    return failed


# ---------------------------------------------------------------------------------------------- diff

def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _diff_path(display: str) -> tuple[str, str]:
    p = display.replace(os.sep, "/")
    while p.startswith("./"):
        p = p[2:]
    if os.path.isabs(display):
        return p, p
    return "a/" + p, "b/" + p


def unified_diff(outcome: FixOutcome, context: int = 3) -> str:
    """A unified diff of every changed file: `--- a/<path>` / `+++ b/<path>` for relative paths (apply with
    `patch -p1` or `git apply`), the same absolute path on both lines otherwise (`patch -p0`)."""
    chunks: list[str] = []
    for ff in outcome.changed:
        old, new = ff.source.text, ff.text
        if ff.source.bom and ff.source.encoding == "utf-8":
            old, new = "\ufeff" + old, "\ufeff" + new
        a, b = (_git_quoted(x) for x in _diff_path(ff.display))
        for line in difflib.unified_diff(_lines(old), _lines(new), a, b, n=context):
            if not line.endswith("\n"):
                line += "\n\\ No newline at end of file\n"
            chunks.append(line)
    return "".join(chunks)


def _git_quoted(path: str) -> str:
    """A path for a diff header as git writes it (quote.c quote_c_style): in double quotes with C escapes and
    octal bytes when it holds a control character, a quote, a backslash or a non-ASCII byte, so a file name can
    neither end the header line nor forge another (`git apply` and GNU patch read the quoted form)."""
    raw = path.encode("utf-8", "surrogateescape")
    if all(0x20 <= c < 0x7f and c not in b'"\\' for c in raw):
        return path
    named = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 0x22: '"', 0x5c: "\\"}
    return '"' + "".join(("\\" + named[c]) if c in named else (chr(c) if 0x20 <= c < 0x7f else f"\\{c:03o}")
                         for c in raw) + '"'


# ---------------------------------------------------------------------------------------------- CLI glue

def _summary(outcome: FixOutcome) -> str:
    """What --fix did: how many findings of which rules it fixed, what remains, and what the fixes uncovered."""
    from collections import Counter

    remaining = len(outcome.report.findings)
    if not outcome.fixed:
        return f"no fixes applied, {counted(remaining, 'finding')} remaining"
    by_code: Counter = Counter()
    for ff in outcome.changed:
        for (code, _desc), n in ff.applied.items():
            by_code[code] += n
    codes = ", ".join(f"{code} x{n}" if n > 1 else code for code, n in sorted(by_code.items()))
    new = outcome.uncovered()
    text = (f"{counted(outcome.fixed, 'finding')} fixed in {counted(len(outcome.changed), 'file')} ({codes}), "
            f"{remaining:,} remaining")
    if new:
        text += (f"; the fixes uncovered {counted(len(new), 'new finding')}: "
                 + ", ".join(f"{f.file}:{f.span.line} {f.code}" for f in new[:5]) + (", ..." if len(new) > 5 else ""))
    return text


def show_fixes(outcome: FixOutcome, out: TextIO) -> None:
    for ff in outcome.changed:
        for (code, desc), n in sorted(ff.applied.items()):
            out.write(f"{ff.display}: {code} {desc}" + (f" (x{n})" if n > 1 else "") + "\n")


def run_fixes(inputs: list[InputFile], config: Config, extra_problems, *, unsafe: bool, diff: bool,
              show: bool = False, stdout=None, stderr: TextIO | None = None, jobs: int = 1,
              cache=None, context: list[InputFile] = ()) -> tuple[Report | None, int | None]:
    """`karplint check --fix` / `--diff` of `inputs`, with the project's other files as `context` (as `check`:
    the remaining findings are those a check of the fixed files reports). Returns (report to render or None,
    exit code or None)."""
    stdout = stdout if stdout is not None else sys.stdout.buffer
    from karplint.report.escape import Escaped

    stderr = Escaped(stderr if stderr is not None else sys.stderr)  # it names files: untrusted text
    outcome = fix_inputs(inputs, config, unsafe=unsafe, extra_problems=extra_problems, jobs=jobs, cache=cache,
                         context=context)
    if diff:
        patch = unified_diff(outcome)
        stdout.write(patch.encode("utf-8"))
        stdout.flush()
        for ff in outcome.changed:
            if ff.source.encoding != "utf-8":
                stderr.write(f"karplint: warning: {ff.display} is {ff.source.encoding.upper()}; the diff shows it as "
                             "UTF-8 text, which `patch` cannot apply to it (use --fix)\n")
        for note in outcome.notes:
            stderr.write(f"karplint: error: {note}\n")
        if show:
            show_fixes(outcome, stderr)
        n = outcome.fixed
        stderr.write(f"karplint: would fix {counted(n, 'finding')} in {counted(len(outcome.changed), 'file')}\n" if n
                     else "karplint: nothing to fix\n")
        return None, 1 if patch else 0
    write_fixes(outcome, config)
    files = {ff.display: ff for ff in outcome.files}
    for item in outcome.inputs:
        if item.abspath is None and item.data is not None:  # stdin: the (fixed) document goes to stdout
            ff = files.get(item.display)
            stdout.write(ff.encoded() if ff is not None and ff.changed else item.data)
            stdout.flush()
    for note in outcome.notes:
        stderr.write(f"karplint: error: {note}\n")
    if show:
        show_fixes(outcome, stderr)
    if outcome.fixed:
        stderr.write(f"karplint: {_summary(outcome)}\n")
    return outcome.report, None
