"""`karplint diff [BASE] [PATHS]...`: what Karpenter does when the change is applied (karplint/diff/). This module
translates the command line: which sides, which format, which exit code."""

from __future__ import annotations

import json
import os
import sys

FORMATS = ("text", "json", "markdown")


def diff_command(args: list[str], *, base: str | None = None, old: str | None = None, new: str | None = None,
                 nodes: int | None = None, output_format: str = "text", exit_code: bool = False,
                 config: str | None = None, karpenter_version: str | None = None) -> int:
    """Returns the exit code: 0 done, 1 with --exit-code when nodes are replaced, 2 a usage problem."""
    from karplint.diff.sides import DiffUsageError, is_revision, load_sides
    from karplint.report import escape

    err = escape.console(stderr=True, soft_wrap=True)

    def die(message: str) -> int:
        err.print(f"karplint diff: {escape.name(message)}")
        return 2

    if output_format not in FORMATS:
        return die(f"--output-format: {output_format!r} is not one of {', '.join(FORMATS)}")
    if nodes is not None and nodes < 1:
        return die(f"--nodes: {nodes} is not a pool size (1 or more)")
    paths = list(args)
    if (old is None) != (new is None):
        return die("--old and --new go together: the two trees to compare")
    if old is not None and base is not None:
        return die("--base compares with git; --old/--new compare two paths: give one or the other")
    if old is None and base is None and paths and is_revision(paths[0]):
        base = paths.pop(0)
    elif old is None and base is None and paths and not os.path.lexists(paths[0]):
        return die(f"{paths[0]}: neither a commit of this repository nor a file or directory")
    try:
        sides = load_sides(base=base, paths=paths, two_paths=(old, new) if old is not None else None,
                           config=config, karpenter_version=karpenter_version)
    except DiffUsageError as exc:
        return die(str(exc))
    import gc

    gc.freeze()  # (both trees are read and stay: the collector need not walk them again during the analysis)
    from karplint.diff import drifted_pools, impact

    doc = impact(*sides, nodes=nodes)
    if output_format == "json":
        sys.stdout.write(escape.json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
    elif output_format == "markdown":
        from karplint.diff.markdown import render_markdown

        sys.stdout.write(render_markdown(doc))
    else:
        from karplint.diff.text import render_text

        render_text(doc, escape.console(soft_wrap=True))
    return 1 if exit_code and drifted_pools(doc) else 0
