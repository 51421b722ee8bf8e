"""`karplint diff` on real history: commits of public repositories that changed a NodePool or EC2NodeClass.

Each case is tests/fixtures/diff/history/NN-name/ with base/ and head/ (the files before and after the commit) and
CASE.md (repository, commit, licence, and the expectation judged from Karpenter's documentation and sources, written
before karplint diff existed). The tests below assert those expectations on
`karplint diff --old base --new head -f json`.
"""
import json
import shutil
import tempfile
from pathlib import Path

import jsonschema
import pytest

from karplint.testing import REPO, run_cli

HISTORY = Path(__file__).parent / "fixtures" / "diff" / "history"
SCHEMA = REPO / "schemas" / "diff.schema.json"

# case: (release passed with --karpenter-version, or None when the files pin it or none is known; see CASE.md)
RELEASES = {
    "01-instance-category-narrowed": None,
    "02-consolidate-after-dropped-v1beta1": None,   # addons/karpenter-helm.tf pins 0.37.7
    "03-role-renamed-with-chart-upgrade": None,     # base pins 0.16.3, head 0.37.7
    "04-consolidate-after-raised": "0.33.1",
    "05-arch-restricted-to-amd64": "0.33.1",
    "06-al2-to-al2023": "1.5.2",
    "07-userdata-and-ebs-throughput": "1.6.3",
    "08-ami-alias-pinned": "1.5.0",
    "09-on-demand-dropped-from-spot-pool": "0.37.0",
    "10-raid0-and-userdata": "1.8.3",
    "11-nodepool-and-nodeclass-removed": None,
    "12-v1beta1-to-v1-on-0.37": None,               # addons/karpenter-helm.tf pins 0.37.7
    "13-instance-cpu-requirement-dropped": "0.33.1",
    "14-expire-after-and-grace-period-set": None,   # the HelmRelease in the file pins 1.1.0
    "15-nodepools-renamed-and-added": "0.32.10",
}

# case: {NodePool: drift verdict}, from CASE.md "Expectation"
VERDICTS = {
    "01-instance-category-narrowed": {"spot": "some"},
    "02-consolidate-after-dropped-v1beta1": {"spot": "none"},
    "03-role-renamed-with-chart-upgrade": {"spot": "unknown"},
    "04-consolidate-after-raised": {"default": "none"},
    "05-arch-restricted-to-amd64": {"default": "some"},
    "06-al2-to-al2023": {"aiml": "all"},
    "07-userdata-and-ebs-throughput": {"aiml": "all"},
    "08-ami-alias-pinned": {"userdata": "unknown"},  # expected "all" at first: see CASE.md
    "09-on-demand-dropped-from-spot-pool": {"node-spot": "some"},
    "10-raid0-and-userdata": {"soci-snapshotter": "all", "soci-snapshotter-br": "all"},
    "11-nodepool-and-nodeclass-removed": {"karpentr-node-pool": "removed"},
    "12-v1beta1-to-v1-on-0.37": {"ondemand": "none"},
    "13-instance-cpu-requirement-dropped": {"amd-nodepool": "none"},
    "14-expire-after-and-grace-period-set": {"default": "all"},
    "15-nodepools-renamed-and-added": {"amd-nodepool": "removed", "arm-nodepool": "removed", "x86": "new", "arm": "new",
                                       "default": "new"},
}

# Where karplint disagrees with the expectation (a karplint defect, reported; the expectation stands)
DISAGREES: dict[str, str] = {}  # (case 12, the v1beta1 -> v1 rewrite, agrees since the conversion is rebuilt)


def _cases(table: dict) -> list:
    return [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=DISAGREES[c])) if c in DISAGREES else c
            for c in sorted(table)]


# case: {NodePool: field prefixes that must each start the `field` of some drifting reason}
DRIFT_FIELDS = {
    "01-instance-category-narrowed": {"spot": ["spec.template.spec.requirements"]},
    "05-arch-restricted-to-amd64": {"default": ["spec.template.spec.requirements"]},
    "06-al2-to-al2023": {"aiml": ["spec.amiSelectorTerms"]},
    "07-userdata-and-ebs-throughput": {"aiml": ["spec.userData", "spec.blockDeviceMappings"]},
    "08-ami-alias-pinned": {"userdata": ["spec.amiSelectorTerms"]},  # drifts "unknown": a reason all the same
    "09-on-demand-dropped-from-spot-pool": {"node-spot": ["spec.template.spec.requirements"]},
    "10-raid0-and-userdata": {"soci-snapshotter": ["spec.instanceStorePolicy", "spec.userData"],
                              "soci-snapshotter-br": ["spec.instanceStorePolicy", "spec.userData"]},
    "14-expire-after-and-grace-period-set": {"default": ["spec.template.spec.expireAfter",
                                                         "spec.template.spec.terminationGracePeriod"]},
}

# case: {NodePool: field prefixes reported among the reasons that do NOT drift}
NOT_DRIFTING = {
    "01-instance-category-narrowed": {"spot": ["spec.limits"]},
    "14-expire-after-and-grace-period-set": {"default": ["spec.template.spec.requirements"]},
}

# case: NodePools that must not be listed (nothing of theirs changed, nor their EC2NodeClass)
ABSENT = {
    "09-on-demand-dropped-from-spot-pool": ["node-od"],
    "10-raid0-and-userdata": ["non-soci-snapshotter"],
}


# case: (NodePool, field, before, after) of a behaviour change the pool must list
BEHAVIOUR = {
    "01-instance-category-narrowed": ("spot", "spec.limits", {"cpu": "4", "memory": "8Gi"},
                                      {"cpu": "8", "memory": "16Gi"}),
    "02-consolidate-after-dropped-v1beta1": ("spot", "spec.disruption.consolidateAfter", "30s", None),
    "04-consolidate-after-raised": ("default", "spec.disruption.consolidateAfter", "30s", "600s"),
    "14-expire-after-and-grace-period-set": ("default", "spec.disruption.consolidationPolicy", "WhenEmpty",
                                             "WhenEmptyOrUnderutilized"),
}

# case: (NodePool, instance types lost, instance types gained)
CAPACITY = {
    "01-instance-category-narrowed": ("spot", True, False),
    "05-arch-restricted-to-amd64": ("default", True, False),
    "13-instance-cpu-requirement-dropped": ("amd-nodepool", False, True),
    "14-expire-after-and-grace-period-set": ("default", False, True),
}


def _diff(case: str) -> tuple[int, str, str]:
    """Run the diff on a copy outside any git repository: karplint looks for the release a repository deploys from
    the repository root, and the sibling cases of this checkout must not count."""
    scratch = Path(tempfile.mkdtemp(prefix="karplint-history-"))
    try:
        for side in ("base", "head"):
            shutil.copytree(HISTORY / case / side, scratch / side)
        args = ["diff", "--old", "base", "--new", "head", "--output-format", "json"]
        if RELEASES[case]:
            args += ["--karpenter-version", RELEASES[case]]
        proc = run_cli(*args, cwd=scratch)
        return proc.returncode, proc.stdout, proc.stderr
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def test_every_case_is_documented_and_listed():
    # (cases 21-28 are test_diff_history_more.py's)
    cases = sorted(p.name for p in HISTORY.iterdir() if p.is_dir() and int(p.name[:2]) < 21)
    assert cases == sorted(VERDICTS) == sorted(RELEASES)
    for case in cases:
        text = (HISTORY / case / "CASE.md").read_text()
        for heading in ("- Repository: https://github.com/", "- Commit: ", "- Licence: ", "## Expectation"):
            assert heading in text, (case, heading)
        assert (HISTORY / case / "base").is_dir() and (HISTORY / case / "head").is_dir()


# One test per case, so that each diff runs once (the run is the cost; xdist would repeat it per worker).
@pytest.mark.parametrize("case", _cases(VERDICTS))
def test_history_case(case):
    code, out, err = _diff(case)
    assert "Traceback" not in err, err
    assert code == 0, (code, err)
    doc = json.loads(out)
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    pools = {p["name"]: p for p in doc["nodepools"]}

    # the drift verdict of every pool CASE.md names; pools it says are not listed
    for name, verdict in VERDICTS[case].items():
        assert name in pools, (case, sorted(pools))
        assert pools[name]["drift"]["verdict"] == verdict, (case, name, pools[name]["drift"])
    for name in ABSENT.get(case, []):
        assert name not in pools, (case, name)

    # the fields that drift are named in the reasons
    for name, prefixes in DRIFT_FIELDS.get(case, {}).items():
        fields = [r.get("field") or "" for r in pools[name]["drift"]["reasons"]]
        for prefix in prefixes:
            assert any(f.startswith(prefix) for f in fields), (case, name, prefix, fields)

    # behavioural fields are reported as not drifting, and not among the reasons
    for name, prefixes in NOT_DRIFTING.get(case, {}).items():
        quiet = [r.get("field") or "" for r in pools[name]["drift"]["not_drifting"]]
        drifting = [r.get("field") or "" for r in pools[name]["drift"]["reasons"]]
        for prefix in prefixes:
            assert any(f.startswith(prefix) for f in quiet), (case, name, prefix, quiet)
            assert not any(f.startswith(prefix) for f in drifting), (case, name, prefix, drifting)

    # rollout is null when no node drifts (none, new, removed); where nodes drift, no budget blocks Drifted in these
    # repositories (none writes a budget), so the change does roll out
    for name, verdict in VERDICTS[case].items():
        rollout = pools[name]["rollout"]
        if verdict in ("none", "removed", "new"):
            assert rollout is None, (case, name, rollout)
        elif verdict in ("all", "some"):
            assert rollout is not None and rollout["never"] is False, (case, name, rollout)

    if case in BEHAVIOUR:
        name, field, before, after = BEHAVIOUR[case]
        behaviour = pools[name]["behaviour"]
        assert [(b["before"], b["after"]) for b in behaviour if b["field"] == field] == [(before, after)], behaviour
        assert all(b["meaning"] for b in behaviour), behaviour

    if case in CAPACITY:
        name, lost, gained = CAPACITY[case]
        capacity = pools[name]["capacity"]
        assert capacity is not None, (case, name)
        assert (capacity["lost_count"] > 0, capacity["gained_count"] > 0) == (lost, gained), capacity

    if case == "11-nodepool-and-nodeclass-removed":
        assert {c["name"]: c["status"] for c in doc["nodeclasses"]} == {"default": "removed"}
    if case == "01-instance-category-narrowed":
        limits = pools["spot"]["capacity"]["limits"]
        assert (str(limits["before"]["cpu"]), str(limits["after"]["cpu"])) == ("4", "8"), limits
