"""karplint.model.durations, karplint.model.cron, karplint.provisioning.placement and karplint.model.detect."""

from __future__ import annotations

import pytest

from karplint.model import cron
from karplint.model.detect import deployed_karpenter, installed_agents
from karplint.model.durations import format_seconds, parse_field, parse_go_duration
from karplint.readers.loader import decode, load
from karplint.model import Model


@pytest.mark.parametrize("text, seconds", [
    ("0", 0.0), ("1h30m", 5400.0), ("1.5h", 5400.0), ("-5s", -5.0), ("300ms", 0.3), ("2h45m10s", 9910.0),
    ("1µs", 1e-6), (".5m", 30.0),
])
def test_go_durations(text, seconds):
    assert parse_go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "1d", "h", "1", "5 m", "1h-5m", "true", " 5m"])
def test_go_durations_rejected(text):
    assert parse_go_duration(text) is None


def test_field_patterns():
    assert parse_field("expireAfter", "Never") == float("inf")
    assert parse_field("terminationGracePeriod", "Never") is None
    assert parse_field("terminationGracePeriod", "1.5h") is None  # CRD pattern: integers only
    assert parse_field("consolidateAfter", "30s") == 30
    assert parse_field("budgets.duration", "1h30m") == 5400
    assert parse_field("budgets.duration", "30s") is None
    assert format_seconds(604800) == "168h" and format_seconds(90) == "1m30s"


@pytest.mark.parametrize("schedule", ["@daily", "@midnight", "0 9 * * 1-5", "*/15 * * * *", "0 0 1,15 * *",
                                      "30 2 * JAN-MAR sun", "0 22 ? * *", "5-10/2 0 1 12 6"])
def test_cron_valid(schedule):
    assert cron.validate(schedule) is None


@pytest.mark.parametrize("schedule, fragment", [
    ("0 24 * * *", "hour field: 24"), ("60 * * * *", "minute field: 60"), ("0 0 0 * *", "day of month field: 0"),
    ("0 0 * 13 *", "month field: 13"), ("0 0 * * 7", "day of week field: 7"), ("* * * *", "found 4"),
    ("0 0 * * * *", "seconds"), ("@every 5m", "@every"), ("@Daily", "unknown schedule macro"),
    ("0 0 * * FOO", "not a number"), ("5-1 * * * *", "backwards"), ("*/0 * * * *", "step"),
    ("TZ=UTC 0 0 * * *", "time zones"), ("0,,5 * * * *", "empty list item"),
])
def test_cron_invalid(schedule, fragment):
    err = cron.validate(schedule)
    assert err is not None and fragment in err


def model_of(files: dict[str, str]) -> Model:
    m = Model()
    for name, text in files.items():
        docs, problems = load(decode(name, text.encode()))
        assert not problems
        m.add(docs)
    return m


def test_detect_cilium_envoy_is_not_cilium():
    m = model_of({"ds.yaml": "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: cilium-envoy\nspec:\n"
                             "  template:\n    spec:\n      containers:\n        - name: envoy\n"
                             "          image: quay.io/cilium/cilium-envoy:v1.30\n"})
    assert installed_agents(m, {}) == {}


def test_detect_karpenter_version_ranges_ignored():
    m = model_of({"Chart.yaml": "apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n"
                                "  - name: karpenter\n    version: \"~1.0\"\n"})
    assert deployed_karpenter(m) is None


def test_detect_karpenter_from_vendored_chart_and_oci_repository():
    m = model_of({"charts/karpenter/Chart.yaml": "apiVersion: v2\nname: karpenter\nversion: 1.0.6\nappVersion: 1.0.6\n"})
    assert str(deployed_karpenter(m).version) == "1.0.6"
    m = model_of({"oci.yaml": "apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: OCIRepository\nmetadata:\n"
                              "  name: karpenter\nspec:\n  url: oci://public.ecr.aws/karpenter/karpenter\n"
                              "  ref:\n    tag: 1.0.3\n"})
    found = deployed_karpenter(m)
    assert str(found.version) == "1.0.3" and "OCIRepository" in found.where
