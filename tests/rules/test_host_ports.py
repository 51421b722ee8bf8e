"""KPL913: a workload's hostPort that a DaemonSet binds on every node the workload's pods can use."""

from __future__ import annotations

from karplint.testing import lint

DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {{name: agent}}
  template:
    metadata:
      labels: {{name: agent}}
    spec:
{extra}      containers:
        - name: agent
          image: agent
          ports:
            - containerPort: 80
              hostPort: 8080
{daemon_port}"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
{extra}      containers:
        - name: web
          image: web
          ports:
            - containerPort: 80
              hostPort: 8080
{port}"""


def _found(ds_extra="", daemon_port="", dep_extra="", port="", ds_path="ds.yaml", dep_path="app.yaml"):
    files = {ds_path: DAEMONSET.format(extra=ds_extra, daemon_port=daemon_port),
             dep_path: DEPLOYMENT.format(extra=dep_extra, port=port)}
    return [(f.code, f.severity, f.file, f.line, f.column, f.message.split("\n")[0]) for f in lint(files)
            if f.code == "KPL913"]


def test_a_daemonset_on_every_node_taking_the_port_is_reported():
    assert _found() == [("KPL913", "warning", "app.yaml", 4, 9,
                         "Deployment `web`: hostPort 8080/TCP is taken by DaemonSet `agent`")]


def test_a_daemonset_kept_off_some_nodes_is_not():
    assert _found(ds_extra="      nodeSelector: {role: edge}\n") == []


def test_tolerations_decide_where_the_pods_can_go():
    tolerates = "      tolerations:\n        - {key: dedicated, operator: Exists, effect: NoSchedule}\n"
    assert _found(dep_extra=tolerates) == []  # (a tainted node may have no DaemonSet pod)
    everything = "      tolerations:\n        - operator: Exists\n"
    assert [r[0] for r in _found(ds_extra=everything, dep_extra=tolerates)] == ["KPL913"]


def test_protocol_and_host_ip_must_overlap():
    assert _found(port="              protocol: UDP\n") == []
    assert _found(port="              hostIP: 10.0.0.1\n", daemon_port="              hostIP: 10.0.0.2\n") == []
    assert [r[0] for r in _found(port="              hostIP: 10.0.0.1\n")] == ["KPL913"]


def test_a_daemonset_of_an_unrelated_directory_is_not_compared():
    assert _found(ds_path="cluster-a/ds.yaml", dep_path="cluster-b/app.yaml") == []
    assert [r[0] for r in _found(ds_path="base/ds.yaml", dep_path="base/apps/app.yaml")] == ["KPL913"]
