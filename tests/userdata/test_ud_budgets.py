"""userData work is bounded per file, per MIME document and per TOML document (issue #24, "Bounded work").

Each generator is the hostile input of the issue scaled down: the old code spent seconds on it (and minutes at full
size); the bound now ends the work with a finding that says "too large" (or "too many") on the EC2NodeClass.
"""

from __future__ import annotations

import time

from karplint.testing import codes, lint
from karplint.userdata.model import MAX_ANALYSED_BYTES_PER_FILE, MAX_MIME_PARTS, MAX_PARSER_BYTES_PER_FILE

from .ud_helpers import nodeclass


def _shell(index: int, size: int) -> str:
    """A bootstrap.sh script of about `size` bytes: chained variables (each value holds the previous one), echoes,
    and a bootstrap.sh call every 50 lines, so every analyser and the bashlex cross-check have work."""
    lines = ["#!/bin/bash", "set -ex"]
    k = total = 0
    while total < size:
        new = [f'VAR{k}="value-{k}-$VAR{max(0, k - 1)}"', f'echo "line {k} $VAR{k}" >> /tmp/log']
        if k % 50 == 0:
            new.append(f"/etc/eks/bootstrap.sh c{index} --kubelet-extra-args '--node-labels=a=b{k}'")
        lines += new
        total += sum(len(ln) + 1 for ln in new)
        k += 1
    return "\n".join(lines)


def _userdata_lines(text: str) -> list[int]:
    """1-based line of each EC2NodeClass's first userData line."""
    return [n + 1 for n, ln in enumerate(text.split("\n"), 1) if ln == "  userData: |"]


def test_userdata_of_a_file_is_bounded_and_the_rest_is_said_too_large():
    size = 40 * 1024
    count = MAX_ANALYSED_BYTES_PER_FILE // size + 2  # 14: two past the file's budget
    text = "---\n".join(nodeclass(f"nc{i}", family_lines="  amiFamily: AL2\n", userdata=_shell(i, size))
                        for i in range(count))
    t0 = time.process_time()
    found = [f for f in lint({"big.yaml": text}) if f.code == "KPL200"]
    elapsed = time.process_time() - t0
    starts = _userdata_lines(text)
    parsed = MAX_PARSER_BYTES_PER_FILE // (size + 1024)  # scripts the bashlex cross-check takes (3)
    analysed = MAX_ANALYSED_BYTES_PER_FILE // (size + 1024)  # scripts analysed at all (12)
    assert codes(found) == [("KPL200", line, 5) for line in starts[parsed:]]
    assert [f.message.split(":")[0] for f in found] == (
        ["this script was not cross-checked by a shell parser"] * (analysed - parsed)
        + ["userData not analysed"] * (count - analysed))
    assert "this file's userData is too large" in found[-1].message
    assert elapsed < 10  # before the bound: ~5 s of CPU here, 80 s and 2 GB for 200 scripts of 45 KB


def test_mime_parts_are_capped():
    parts = "".join(f"--B\nContent-Type: text/x-shellscript\n\necho {i}\n" for i in range(MAX_MIME_PARTS + 1))
    userdata = f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n{parts}--B--'
    text = nodeclass(family_lines="  amiFamily: AL2\n", userdata=userdata)
    found = [f for f in lint({"t.yaml": text}) if f.code == "KPL200"]
    assert codes(found) == [("KPL200", 9, 5)]
    assert found[0].message.startswith(f"userData has {MAX_MIME_PARTS + 1:,} MIME parts: too many")
