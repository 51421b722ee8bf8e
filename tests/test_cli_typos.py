"""A typo never disables linting: unknown selectors, configuration keys, severities and releases stop the run
(exit 2) with a suggestion, as ruff does, instead of a warning followed by "All checks passed"."""

from __future__ import annotations

import pytest

from karplint.testing import run_cli

NODEPOOL = "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: x}\nspec: {}\n"


@pytest.mark.parametrize("args,message", [
    (["--select", "KPL999"], "--select: `KPL999` matches no rule; did you mean"),
    (["--extend-select", "KPL8O1"], "--extend-select: `KPL8O1` matches no rule; did you mean `KPL801`"),
    (["--ignore", "userdat"], "--ignore: `userdat` matches no rule; did you mean `userdata`?"),
    (["--ignore", "removed-api-versoin"], "did you mean `removed-api-version`"),
    (["--karpenter-version", "1.41.1"], "no Karpenter release 1.41.1 exists (the newest karplint knows is 1.14.1); "
                                        "did you mean 1.14.1?"),
])
def test_command_line_typos_are_errors(tmp_path, args, message):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    proc = run_cli("check", "np.yaml", "--no-cache", *args, cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("toml,message", [
    ('selct = ["ALL"]\n', "unknown configuration key `selct`; did you mean `select`?"),
    ('select = ["KPL999"]\n', "`select`: `KPL999` matches no rule"),
    ('ignore = ["KPL7O5"]\n', "`ignore`: `KPL7O5` matches no rule; did you mean `KPL705`"),
    ('[per-file-ignores]\n"x/*" = ["KPL4002"]\n', '`per-file-ignores."x/*"`: `KPL4002` matches no rule'),
    ('[severity]\nKPL7O5 = "info"\n', "`severity.KPL7O5`: not a rule code; did you mean `KPL705`"),
    ('karpenter-version = "1.41.1"\n', "`karpenter-version`: no Karpenter release 1.41.1 exists"),
])
def test_configuration_typos_are_errors(tmp_path, toml, message):
    (tmp_path / ".karplint.toml").write_text(toml)
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    proc = run_cli("check", "np.yaml", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


@pytest.mark.parametrize("args", [["--select", "KPL8"], ["--select", "deprecation"], ["--ignore", "KPL80"],
                                  ["--select", "removed-api-version"], ["--karpenter-version", "1.15.0"]])
def test_valid_selectors_and_plausible_releases_still_run(tmp_path, args):
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    proc = run_cli("check", "np.yaml", "--no-cache", *args, cwd=tmp_path)
    assert proc.returncode in (0, 1) and "error:" not in proc.stderr


def test_show_settings_names_the_file_the_release_and_its_source(tmp_path):
    (tmp_path / ".karplint.toml").write_text('karpenter-version = "1.1.0"\nignore = ["KPL705"]\n')
    proc = run_cli("check", "--show-settings", ".", cwd=tmp_path)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0] == f"configuration file: {tmp_path / '.karplint.toml'}"
    assert lines[1] == f"karpenter version: 1.1.0 (from {tmp_path / '.karplint.toml'})"
    rules_on = next(ln for ln in lines if ln.startswith("rules on: "))
    assert "KPL801" in rules_on and "KPL705" not in rules_on
    cli = run_cli("check", "--show-settings", "--karpenter-version", "1.0.0", ".", cwd=tmp_path)
    assert "karpenter version: 1.0.0 (from --karpenter-version)" in cli.stdout


def test_karplint_toml_accepts_the_readme_table_shape(tmp_path):
    (tmp_path / ".karplint.toml").write_text('[tool.karplint]\nfail-on = "error"\nkarpenter-version = "1.14.1"\n\n'
                                             '[tool.karplint.severity]\nKPL801 = "info"\n')
    (tmp_path / "np.yaml").write_text(NODEPOOL)
    proc = run_cli("check", "np.yaml", "--no-cache", "--select", "KPL801", "-f", "json", cwd=tmp_path)
    import json

    codes = {(f["code"], f["severity"]) for f in json.loads(proc.stdout)["findings"]}
    assert ("KPL801", "info") in codes and proc.returncode == 0  # info does not fail at fail-on = error
