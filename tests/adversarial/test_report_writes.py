"""`--output FILE` when the checked tree is untrusted: a pull request can commit the report's name (the README's
Action setup once wrote `karplint.sarif` in the checkout) as a symbolic link, or a directory on the way to it;
the report is never written through such a link. Run without capabilities as root, so that permissions apply."""

from __future__ import annotations

import json
import os

import pytest

from karplint.testing import run_cli

OLD = "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\nspec: {}\n"


@pytest.fixture
def checkout(tmp_path):
    """A checked-out pull request beside a file it must not touch."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim").write_text("precious\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "np.yaml").write_text(OLD)
    return repo


def _leftovers(*dirs) -> list[str]:
    return sorted(n for d in dirs for n in os.listdir(d) if n.endswith("karplint~") or n.startswith(".tmp-"))


def test_report_link_to_a_file_outside_is_refused(checkout):
    (checkout / "karplint.sarif").symlink_to("../outside/victim")
    proc = run_cli("check", ".", "--no-cache", "-f", "sarif", "-o", "karplint.sarif", cwd=checkout,
                   unprivileged=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ("karplint: error: --output karplint.sarif: is a symbolic link (a checked tree could have "
                           "placed it there); name the real path\n")
    assert (checkout.parent / "outside" / "victim").read_text() == "precious\n"
    assert os.readlink(checkout / "karplint.sarif") == "../outside/victim"


def test_dangling_report_link_creates_nothing(checkout):
    (checkout / "karplint.sarif").symlink_to("../outside/created")
    proc = run_cli("check", ".", "--no-cache", "-f", "sarif", "-o", "karplint.sarif", cwd=checkout,
                   unprivileged=True)
    assert proc.returncode == 2 and "--output karplint.sarif: is a symbolic link" in proc.stderr
    assert sorted(os.listdir(checkout.parent / "outside")) == ["victim"]


def test_linked_directory_inside_the_checkout_is_refused(checkout):
    (checkout / "reports").symlink_to("../outside")
    (checkout.parent / "outside" / "karplint.sarif").write_text("theirs\n")
    proc = run_cli("check", ".", "--no-cache", "-f", "sarif", "-o", "reports/karplint.sarif", cwd=checkout,
                   unprivileged=True)
    assert proc.returncode == 2, proc.stderr
    assert "--output reports/karplint.sarif: is a symbolic link" in proc.stderr
    assert (checkout.parent / "outside" / "karplint.sarif").read_text() == "theirs\n"
    assert sorted(os.listdir(checkout.parent / "outside")) == ["karplint.sarif", "victim"]


def test_linked_directory_inside_a_checked_path_is_refused_from_elsewhere(checkout, tmp_path):
    """Run from outside the checkout: the checked path is guarded as well as the working directory."""
    (checkout / "reports").symlink_to("../outside")
    proc = run_cli("check", str(checkout), "--no-cache", "-f", "sarif", "-o", str(checkout / "reports" / "k.sarif"),
                   cwd=tmp_path / "outside", unprivileged=True)
    assert proc.returncode == 2 and "is a symbolic link" in proc.stderr, proc.stderr
    assert sorted(os.listdir(tmp_path / "outside")) == ["victim"]


def test_report_replaces_a_regular_file_and_leaves_no_temporary_file(checkout):
    (checkout / "report.txt").write_text("old report\n")
    os.link(checkout / "report.txt", checkout.parent / "outside" / "hardlink")
    proc = run_cli("check", ".", "--no-cache", "--select", "KPL801", "--karpenter-version", "1.14.1", "-f", "json",
                   "-o", "report.txt", cwd=checkout, unprivileged=True)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    assert [(f["code"], f["line"], f["column"]) for f in json.loads((checkout / "report.txt").read_text())[
        "findings"]] == [("KPL801", 1, 13)]
    # a new file took the name: another name of the old one (here outside the tree) is not written through
    assert (checkout.parent / "outside" / "hardlink").read_text() == "old report\n"
    assert _leftovers(checkout) == []


def test_descriptor_names_and_devices_the_user_names_are_written(checkout):
    """`-o /dev/stdout` is a common idiom (a link to /proc/self/fd/1, recognised by its name); /dev/null is a
    character device, written in place."""
    proc = run_cli("check", ".", "--no-cache", "--karpenter-version", "1.14.1", "-f", "concise", "-o", "/dev/stdout",
                   cwd=checkout, unprivileged=True)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("np.yaml:1:13: KPL801 [error] ")
    proc = run_cli("check", ".", "--no-cache", "-f", "concise", "-o", "/dev/null", cwd=checkout, unprivileged=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", "")


def test_report_into_a_missing_directory_is_a_usage_error_before_the_run(checkout):
    proc = run_cli("check", ".", "--no-cache", "-o", "nowhere/out.txt", cwd=checkout, unprivileged=True)
    assert proc.returncode == 2
    assert proc.stderr == "karplint: error: --output nowhere/out.txt: directory 'nowhere' does not exist\n"


def test_unwritable_report_directory_names_the_path(checkout):
    (checkout / "ro").mkdir()
    (checkout / "ro").chmod(0o555)
    proc = run_cli("check", ".", "--no-cache", "-o", "ro/out.txt", cwd=checkout, unprivileged=True)
    assert proc.returncode == 2
    assert proc.stderr == "karplint: error: cannot write the report to ro/out.txt: Permission denied\n"
    assert os.listdir(checkout / "ro") == []
