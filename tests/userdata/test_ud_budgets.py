"""userData work is bounded per file, per MIME document and per TOML document (issue #24, "Bounded work").

Each generator is the hostile input of the issue scaled down: the old code spent seconds on it (and minutes at full
size); the bound now ends the work with a finding that says "too large" (or "too many") on the EC2NodeClass.
"""

from __future__ import annotations

import time

from karplint.readers.toml_limits import too_many_entries
from karplint.testing import codes, lint, run_cli
from karplint.userdata.bottlerocket import MAX_TOML_ENTRIES
from karplint.userdata.merge import MAX_RENDERED_BYTES
from karplint.userdata.mime import MAX_MIME_PARTS
from karplint.userdata.model import MAX_ANALYSED_BYTES_PER_FILE, MAX_PARSER_BYTES_PER_FILE

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


def _bottlerocket(userdata: str) -> str:
    return nodeclass("br", family_lines="  amiFamily: Bottlerocket\n", userdata=userdata)


def test_toml_keys_are_capped_before_tomllib():
    entries = "".join(f"k{i}=1\n" for i in range(MAX_TOML_ENTRIES))  # the header makes it one too many
    text = _bottlerocket("[settings.kubernetes]\n" + entries)
    found = [f for f in lint({"t.yaml": text}) if f.code == "KPL240"]
    first = _userdata_lines(text)[0]
    assert codes(found) == [("KPL240", first + MAX_TOML_ENTRIES, 5)]
    assert found[0].severity == "info"
    assert found[0].message.startswith(f"settings not analysed: more than {MAX_TOML_ENTRIES:,} keys and table headers "
                                       "(too large)")


def test_toml_entries_count_outside_strings():
    quoted = '[settings.kubernetes.node-labels]\n' + "".join(f'"k{i}" = "a=b=c"\n' for i in range(MAX_TOML_ENTRIES - 1))
    assert too_many_entries(quoted, MAX_TOML_ENTRIES) is None  # `=` inside strings does not count
    assert too_many_entries(quoted + "x = 1\ny = 2\n", MAX_TOML_ENTRIES) == MAX_TOML_ENTRIES + 1  # the line of `x`


def _render(tmp_path, text: str) -> tuple[str, float]:
    path = tmp_path / "nc.yaml"
    path.write_text(text)
    t0 = time.monotonic()
    proc = run_cli("render", str(path))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout, time.monotonic() - t0


def test_render_bounds_mime_parts(tmp_path):
    parts = "".join(f"--B\nContent-Type: text/x-shellscript\n\necho {i}\n" for i in range(MAX_MIME_PARTS + 1))
    userdata = f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n{parts}--B--'
    out, elapsed = _render(tmp_path, nodeclass(family_lines="  amiFamily: AL2\n", userdata=userdata))
    assert (f"note: not rendered: userData has {MAX_MIME_PARTS + 1:,} MIME parts: too many to render (karplint "
            f"renders up to {MAX_MIME_PARTS:,})") in out.split("\n")
    assert "userData Karpenter renders:" not in out and "echo 1\n" not in out
    assert elapsed < 10


def test_render_bounds_toml_entries(tmp_path):
    userdata = "".join(f"[settings.t{i}]\nx.y = 1\n" for i in range(MAX_TOML_ENTRIES))  # tomllib: superlinear
    out, elapsed = _render(tmp_path, _bottlerocket(userdata))
    assert (f"note: not rendered: userData has more than {MAX_TOML_ENTRIES:,} keys and table headers "
            "(too large)") in out.split("\n")
    assert "Karpenter cannot render" not in out  # a budget of karplint's, not Karpenter's verdict
    assert elapsed < 10


def test_render_bounds_userdata_size(tmp_path):
    userdata = "#!/bin/bash\n" + "echo hello world\n" * 4000  # 68,012 bytes
    out, elapsed = _render(tmp_path, nodeclass(family_lines="  amiFamily: AL2\n", userdata=userdata))
    assert (f"note: not rendered: userData is 68,012 bytes: too large to render (karplint renders up to "
            f"{MAX_RENDERED_BYTES:,} bytes)") in out.split("\n")
    assert "echo hello world" not in out
    assert elapsed < 10


def test_file_budget_is_shared_by_the_blocks_of_one_host_and_goes_with_its_source():
    from karplint.readers.source import SourceFile
    from karplint.userdata.model import file_budget

    host = object()  # the embedding: blocks of one Markdown file or Terraform heredocs
    first, second = (SourceFile("doc.md", "\n" * k + "x", "/r/doc.md", embedding=host) for k in (3, 9))
    plain_a, plain_b = SourceFile("a.yaml", "x", "/r/a.yaml"), SourceFile("a.yaml", "x", "/r/a.yaml")
    file_budget(first).analysed = 100
    assert file_budget(second).analysed == 100  # one host file, one budget
    file_budget(plain_a).analysed = 7
    assert file_budget(plain_b).analysed == 0  # two reads of a file (two runs): a budget each
    del first
    assert file_budget(second).analysed == 0  # the source it was opened for is gone: a later run starts afresh
