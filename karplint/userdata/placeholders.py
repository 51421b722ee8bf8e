"""Values only the cluster (or the launch) knows, shown as `${NAME}` in rendered userData."""

from __future__ import annotations


class Placeholder(str):
    """A value only the cluster knows: rendered verbatim (never quoted) in YAML, TOML and shell."""


PLACEHOLDERS = {
    "cluster_name": Placeholder("${CLUSTER_NAME}"),
    "endpoint": Placeholder("${CLUSTER_ENDPOINT}"),
    "ca_bundle": Placeholder("${CLUSTER_CA_BUNDLE}"),
    "service_cidr": Placeholder("${CLUSTER_SERVICE_CIDR}"),
    "dns_ip": Placeholder("${CLUSTER_DNS_IP}"),
    "max_pods": Placeholder("${MAX_PODS}"),
    "capacity_type": Placeholder("${CAPACITY_TYPE}"),
    "nodepool": Placeholder("${NODEPOOL_NAME}"),
}
