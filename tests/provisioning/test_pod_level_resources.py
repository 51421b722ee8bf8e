"""Pod-level `resources` (Kubernetes 1.34 on by default): their cpu and memory are the pod's requests, whatever the
containers ask (k8s.io/component-helpers resource/helpers.go `PodRequests`, which Karpenter's `Ceiling` calls:
kubernetes-sigs/karpenter pkg/utils/resources/resources.go@v1.14.1#L115)."""

from __future__ import annotations

from fractions import Fraction

from karplint.provisioning.pods import pod_requests


def test_pod_level_requests_replace_the_containers_cpu_and_memory():
    spec = {"resources": {"requests": {"cpu": "9.9", "memory": "3.9Gi"}, "limits": {"cpu": "10", "memory": "4Gi"}},
            "containers": [{"resources": {"requests": {"cpu": "5", "memory": "1Gi", "nvidia.com/gpu": "1"}}}],
            "overhead": {"cpu": "100m"}}
    got = pod_requests(spec)
    assert got["cpu"] == Fraction(10)  # 9.9 + the overhead's 0.1, not 5
    assert got["memory"] == Fraction(39, 10) * 2**30
    assert got["nvidia.com/gpu"] == 1 and got["pods"] == 1  # (other resources stay the containers')


def test_pod_level_limits_stand_in_for_requests():
    got = pod_requests({"resources": {"limits": {"cpu": "8"}},
                        "containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]})
    assert got["cpu"] == 8 and got["memory"] == 2**30


def test_unreadable_pod_level_resources_cannot_tell():
    assert pod_requests({"resources": {"requests": {"cpu": "lots"}}, "containers": [{}]}) is None
