"""Hostile inputs of a few hundred KB that crashed the interpreter, hung or claimed gigabytes: each now ends in a
finding, within 10 s and 1 GB, with a valid report. Run through the real command line, one worker."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

MEMORY_LIMIT = 1 << 30  # bytes of address space for the checked run: 1 GB


def _limited():  # in the child, before exec: a run over budget fails instead of swapping the machine
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT * 2, MEMORY_LIMIT * 2))


def run(*args: str, cwd: Path, stdin: bytes | None = None) -> tuple[int, dict, str, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR")}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "karplint", "check", "--no-cache", "-j", "1",
                           "--output-format", "json", *args], cwd=cwd, input=stdin, capture_output=True, env=env,
                          timeout=30, preexec_fn=_limited)
    elapsed = time.monotonic() - started
    # the largest resident set of any child so far (all of them must stay under the budget)
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 < MEMORY_LIMIT
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode in (0, 1), (proc.returncode, stderr[-2000:])  # no signal, no internal error
    assert "Traceback" not in stderr
    return proc.returncode, json.loads(proc.stdout), stderr, elapsed


def _codes(report: dict) -> set[tuple[str, int]]:
    return {(f["code"], f["line"]) for f in report["findings"]}


def _nodeclass(family: str, userdata: str, name: str = "x") -> str:
    return (f"apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: {name}\nspec:\n"
            f"  amiFamily: {family}\n  role: r\n  amiSelectorTerms: [{{alias: {family.lower()}@latest}}]\n"
            "  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n"
            f"  userData: {json.dumps(userdata)}\n")


DEEP = 100_000

DEEP_FILES = {
    "flow.yaml": "a: " + "[" * DEEP + "]" * DEEP + "\n",
    "block.yaml": "a:\n  " + "- " * DEEP + "x\n",
    "map.yaml": "a: " + "{b: " * (DEEP // 2) + "1" + "}" * (DEEP // 2) + "\n",
    "deep.json": '{"a":' + "[" * DEEP + "]" * DEEP + "}",
}


@pytest.mark.parametrize("name", sorted(DEEP_FILES))
def test_deep_nesting_is_kpl004_not_a_segfault(tmp_path, name):
    (tmp_path / name).write_text(DEEP_FILES[name])
    code, report, _, elapsed = run(name, cwd=tmp_path)
    assert code == 1 and elapsed < 10
    assert [f["code"] for f in report["findings"]] == ["KPL004"]
    assert "nested deeper than 1000 levels" in report["findings"][0]["message"]


def test_deep_nodeconfig_in_userdata(tmp_path):
    deep = 31_000  # 62 KB: analysed (under 64 KiB), and past where the parsers overflowed the C stack
    ud = ("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config: "
          + "[" * deep + "]" * deep + "\n")
    (tmp_path / "nc.yaml").write_text(_nodeclass("AL2023", ud))
    code, report, _, elapsed = run("nc.yaml", cwd=tmp_path)
    assert elapsed < 10
    assert any("nested deeper than 1000 levels" in f["message"] for f in report["findings"])
    proc = subprocess.run([sys.executable, "-m", "karplint", "render", "nc.yaml"], cwd=tmp_path, capture_output=True,
                          timeout=30, preexec_fn=_limited)
    assert proc.returncode in (0, 1) and b"Traceback" not in proc.stderr


def test_variable_doubling_is_bounded(tmp_path):
    script = "#!/bin/bash\nA=xxxxxxxxxxxxxxxx\n" + "A=$A$A\n" * 40 + '/etc/eks/bootstrap.sh c --kubelet-extra-args "$A"\n'
    (tmp_path / "nc.yaml").write_text(_nodeclass("AL2", script))
    code, report, _, elapsed = run("nc.yaml", cwd=tmp_path)
    assert elapsed < 10
    assert any(f["code"] == "KPL200" and "cannot verify" in f["message"] for f in report["findings"])


@pytest.mark.parametrize("family,body", [
    ("AL2", "#!/bin/bash\n" + "/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=a=b:NoSchedule'\n"
     * 20_000),
    ("AL2", "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints="
     + ",".join(f"k{i}=v:NoSchedule" for i in range(200_000)) + "'\n"),
    ("AL2", "#!/bin/bash\necho $'" + "\\x41" * 1_000_000 + "'\n"),  # a 4 MB ANSI-C quoted word
    ("AL2", "#!/bin/bash\necho " + "a" * 4_000_000 + "\n"),  # a 4 MB word
    ("AL2", "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n"
     + "--B\nContent-Type: text/x-shellscript\n\necho\n" * 80_000),
    ("AL2023", "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n"
     + "--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
       "spec: {kubelet: {flags: [--v=2]}}\n" * 1_000),
    ("Bottlerocket", "".join(f"[settings.t{i}]\nk{i}.a.b = 1\n" for i in range(100_000))),
    ("Windows2022", "<powershell>" * 200_000),
])
def test_oversized_userdata_is_not_analysed_and_cannot_launch(tmp_path, family, body):
    (tmp_path / "nc.yaml").write_text(_nodeclass(family, body))
    code, report, _, elapsed = run("nc.yaml", cwd=tmp_path)
    assert code == 1 and elapsed < 10
    codes = [f["code"] for f in report["findings"]]
    assert "KPL270" in codes  # over EC2's 16 KiB: no node
    assert any(f["code"] == "KPL200" and "nothing in it was verified" in f["message"] for f in report["findings"])


def test_unbalanced_powershell_tags_within_the_budget(tmp_path):
    (tmp_path / "nc.yaml").write_text(_nodeclass("Windows2022", "<powershell>\n" * 4_000 + "</powershell>" * 1_000))
    code, report, _, elapsed = run("nc.yaml", cwd=tmp_path)
    assert code == 1 and elapsed < 10


def test_bottlerocket_dotted_key_bomb(tmp_path):
    toml = "[settings.kubernetes]\n" + ".".join(["a"] * 8_000) + " = 1\n"  # 16 KB: quadratic in tomllib
    (tmp_path / "nc.yaml").write_text(_nodeclass("Bottlerocket", toml))
    code, report, _, elapsed = run("nc.yaml", cwd=tmp_path)
    assert elapsed < 10
    assert any(f["code"] == "KPL240" and f["severity"] == "info" and "not analysed" in f["message"]
               for f in report["findings"])


def test_configuration_dotted_key_bomb(tmp_path):
    (tmp_path / ".karplint.toml").write_text(".".join(["a"] * 20_000) + " = 1\n")  # 40 KB, 1.5 GB in tomllib
    (tmp_path / "np.yaml").write_text("a: 1\n")
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "karplint", "check", "np.yaml"], cwd=tmp_path, capture_output=True,
                          env=env, timeout=30, preexec_fn=_limited)
    assert time.monotonic() - started < 10
    assert proc.returncode == 2 and b"more than 64 dotted parts" in proc.stderr and b"Traceback" not in proc.stderr


def test_stdin_is_read_up_to_the_size_limit_only(tmp_path):
    (tmp_path / ".karplint.toml").write_text("max-file-size = 1000\n")
    code, report, _, elapsed = run("-", cwd=tmp_path, stdin=b"a: 1\n" * 2_000_000)  # 10 MB
    assert code == 1 and [f["code"] for f in report["findings"]] == ["KPL004"]


def test_file_replaced_by_a_fifo_after_discovery(tmp_path, monkeypatch):
    """Discovery saw a regular file; by the time it is read it is a FIFO nobody writes to."""
    from karplint.engine import InputFile, read_input
    from karplint.testing import make_config

    fifo = tmp_path / "np.yaml"
    os.mkfifo(fifo)
    result: list = []
    t = threading.Thread(target=lambda: result.append(read_input(InputFile("np.yaml", str(fifo)), make_config())),
                         daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "reading a FIFO hung"
    assert result[0].problems[0].code == "KPL003" and "FIFO" in result[0].problems[0].message


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs /proc")
def test_reading_files_leaves_no_memory_map_per_file(tmp_path):
    """A tree of 80,000 files failed with "failed to map segment": each read reserved the whole size limit (its own
    mapping) and kept a page of it. The kernel allows 65,530 mappings per process."""
    from karplint.engine import read_regular

    for i in range(3000):
        (tmp_path / f"f{i}.yaml").write_text(f"a: {i}\n")

    def maps() -> int:
        with open("/proc/self/maps") as fh:
            return sum(1 for _ in fh)

    before = maps()
    kept = [read_regular(str(tmp_path / f"f{i}.yaml"), 5 * 1024 * 1024) for i in range(3000)]
    assert len(kept) == 3000 and maps() - before < 300


def test_budget_schedules_that_fire_every_minute(tmp_path):
    """Disruption budgets are expanded minute by minute over a week (karplint.disruption): 60 budgets firing every
    other minute and windows of 2562047h stay bounded (50 budgets, the CRD's maximum, one look-back hit each).
    2562047h is the longest Go duration: a longer one (99999999h) is no duration at all, which Go rejects."""
    budgets = "".join(f'      - {{nodes: "{i}", schedule: "*/2 * * * *", duration: 1m}}\n' for i in range(60))
    budgets += '      - {nodes: "1", schedule: "@yearly", duration: 2562047h}\n'
    pool = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p{n}\nspec:\n  disruption:\n"
            "    consolidateAfter: 0s\n    budgets:\n" + budgets +
            "  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}\n"
            "      requirements: []\n")
    (tmp_path / "pools.yaml").write_text("---\n".join(pool.replace("{n}", str(n)) for n in range(4)))
    code, report, _, elapsed = run("--select", "KPL42,KPL406", "pools.yaml", cwd=tmp_path)
    assert elapsed < 10, elapsed
    assert not any(f["code"] == "KPL006" for f in report["findings"])


def test_karpenter_objects_of_one_kind_past_the_per_file_bound(tmp_path):
    """Schema, CEL and the rules cost about a millisecond per NodePool: 10,000 in one file took 12 s. Past
    MAX_CHECKED_PER_KIND of one kind, KPL004 on the first left out; the ones before are checked as usual."""
    from karplint.engine import MAX_CHECKED_PER_KIND

    pool = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p{n}\nspec:\n  template:\n    spec:\n"
            "      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}\n"
            "      requirements: []\n")
    count = MAX_CHECKED_PER_KIND + 5
    (tmp_path / "pools.yaml").write_text("---\n".join(pool.format(n=n) for n in range(count)))
    _code, report, _err, elapsed = run("--select", "KPL004,KPL705", "pools.yaml", cwd=tmp_path)
    lines_per_pool = pool.count("\n") + 1  # (with its `---`)
    assert [(f["code"], f["line"], f["column"], f["message"]) for f in report["findings"] if f["code"] == "KPL004"] == [
        ("KPL004", MAX_CHECKED_PER_KIND * lines_per_pool + 1, 1,
         f"more than {MAX_CHECKED_PER_KIND:,} NodePool objects in one file (too large): this one and the 4 after it "
         "are not checked one by one; split the file")]
    assert sum(f["code"] == "KPL705" for f in report["findings"]) == MAX_CHECKED_PER_KIND
    assert elapsed < 10, elapsed
