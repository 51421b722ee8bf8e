"""A deterministic synthetic monorepo of Kubernetes manifests, shaped like real repositories.

Mostly Deployments, Services and ConfigMaps in team folders, multi-document files, ~5% Karpenter resources
(NodePool, EC2NodeClass with userData of every family), a few JSON files and a few broken files.
The same (n, seed) always writes the same bytes.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

TEAMS = ["payments", "search", "identity", "checkout", "platform", "data", "ml", "web", "mobile", "infra",
         "growth", "ads", "media", "support", "billing", "risk"]
IMAGES = ["nginx:1.27", "ghcr.io/acme/api:2.3.1", "redis:7.2", "public.ecr.aws/acme/worker:v88",
          "quay.io/prometheus/node-exporter:v1.8.2", "python:3.12-slim"]

AL2_USERDATA = """MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="BOUNDARY"

--BOUNDARY
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
set -euo pipefail
/etc/eks/bootstrap.sh '${CLUSTER_NAME}' --kubelet-extra-args '--node-labels=team={team} --register-with-taints=dedicated={team}:NoSchedule'
--BOUNDARY--
"""
AL2023_USERDATA = """MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    config:
      maxPods: {pods}
      shutdownGracePeriod: 30s
    flags:
      - --node-labels=team={team}
--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
echo "hello from {team}"
--//--
"""
BOTTLEROCKET_USERDATA = """[settings.kubernetes]
max-pods = {pods}
kube-api-qps = 30
[settings.kubernetes.node-labels]
team = "{team}"
[settings.kubernetes.node-taints]
dedicated = "{team}:NoSchedule"
"""
WINDOWS_USERDATA = """<powershell>
Write-Host "team {team}"
[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"
& $EKSBootstrapScriptFile -EKSClusterName "${{CLUSTER_NAME}}" -KubeletExtraArgs "--node-labels=team={team}"
</powershell>
"""
CUSTOM_USERDATA = """#!/bin/bash
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args "--max-pods={pods}"
"""
FAMILIES = [("AL2", AL2_USERDATA, "al2@latest"), ("AL2023", AL2023_USERDATA, "al2023@v20240807"),
            ("Bottlerocket", BOTTLEROCKET_USERDATA, "bottlerocket@latest"),
            ("Windows2022", WINDOWS_USERDATA, "windows2022@latest"), ("Custom", CUSTOM_USERDATA, None)]


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))


def deployment(r: random.Random, team: str, app: str) -> str:
    extra_ann = ""
    if r.random() < 0.08:
        extra_ann = '        karpenter.sh/do-not-disrupt: "true"\n'
    tolerations = ""
    if r.random() < 0.15:
        tolerations = (f"      tolerations:\n        - key: dedicated\n          operator: Equal\n"
                       f"          value: {team}\n          effect: NoSchedule\n")
    node_selector = ""
    if r.random() < 0.2:
        node_selector = f"      nodeSelector:\n        karpenter.sh/nodepool: {team}\n"
    envs = "".join(f"            - name: VAR_{i}\n              value: \"{r.randint(0, 99999)}\"\n"
                   for i in range(r.randint(0, 6)))
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {app}
  namespace: {team}
  labels:
    app.kubernetes.io/name: {app}
    app.kubernetes.io/part-of: {team}
spec:
  replicas: {r.randint(1, 12)}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      app.kubernetes.io/name: {app}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: {app}
      annotations:
        prometheus.io/scrape: "true"
{extra_ann}    spec:
      serviceAccountName: {app}
{node_selector}{tolerations}      containers:
        - name: {app}
          image: {r.choice(IMAGES)}
          ports:
            - containerPort: {r.choice([80, 8080, 9090, 3000])}
              name: http
          env:
{envs}            - name: TEAM
              value: {team}
          resources:
            requests:
              cpu: {r.choice(["100m", "250m", "500m", "1"])}
              memory: {r.choice(["128Mi", "256Mi", "1Gi"])}
            limits:
              memory: {r.choice(["256Mi", "512Mi", "2Gi"])}
          readinessProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 10
"""


def service(r: random.Random, team: str, app: str) -> str:
    return f"""apiVersion: v1
kind: Service
metadata:
  name: {app}
  namespace: {team}
spec:
  type: {r.choice(["ClusterIP", "ClusterIP", "LoadBalancer"])}
  selector:
    app.kubernetes.io/name: {app}
  ports:
    - name: http
      port: 80
      targetPort: http
"""


def configmap(r: random.Random, team: str, app: str) -> str:
    keys = "".join(f"  key_{i}: \"{r.getrandbits(40):x}\"\n" for i in range(r.randint(1, 8)))
    block = ""
    if r.random() < 0.4:
        lines = "".join(f"    setting.{i} = {r.randint(0, 1000)}\n" for i in range(r.randint(2, 15)))
        block = f"  app.properties: |\n{lines}"
    return f"""apiVersion: v1
kind: ConfigMap
metadata:
  name: {app}-config
  namespace: {team}
data:
{keys}{block}"""


def pdb(r: random.Random, team: str, app: str) -> str:
    return f"""apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {app}
  namespace: {team}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: {app}
"""


def hpa(r: random.Random, team: str, app: str) -> str:
    return f"""apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {app}
  namespace: {team}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {app}
  minReplicas: 2
  maxReplicas: {r.randint(3, 30)}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: 70
"""


def cronjob(r: random.Random, team: str, app: str) -> str:
    return f"""apiVersion: batch/v1
kind: CronJob
metadata:
  name: {app}-nightly
  namespace: {team}
spec:
  schedule: "{r.randint(0, 59)} {r.randint(0, 23)} * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: job
              image: {r.choice(IMAGES)}
              args: ["--run", "nightly"]
"""


def nodepool(r: random.Random, team: str, i: int) -> str:
    version = "v1" if r.random() < 0.8 else "v1beta1"
    disruption = ("  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 1m\n"
                  if version == "v1" else "  disruption:\n    consolidationPolicy: WhenUnderutilized\n")
    taints = ""
    if r.random() < 0.5:
        taints = f"      taints:\n        - key: dedicated\n          value: {team}\n          effect: NoSchedule\n"
    return f"""apiVersion: karpenter.sh/{version}
kind: NodePool
metadata:
  name: {team}-{i}
spec:
  template:
    metadata:
      labels:
        team: {team}
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: {team}-{i}
{taints}      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot", "on-demand"]
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
      expireAfter: 720h
  limits:
    cpu: "{r.choice([100, 500, 1000])}"
{disruption}"""


def nodeclass(r: random.Random, team: str, i: int, family: int) -> str:
    fam, userdata, alias = FAMILIES[family % len(FAMILIES)]
    ud = userdata.replace("{team}", team).replace("{pods}", str(r.randint(20, 110)))
    ud = ud.replace("{{", "{").replace("}}", "}")
    ami = f"    - alias: {alias}\n" if alias else "    - id: ami-0123456789abcdef0\n"
    family_line = f"  amiFamily: {fam}\n" if fam == "Custom" else ""
    return f"""apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: {team}-{i}
spec:
  role: KarpenterNodeRole-prod
{family_line}  amiSelectorTerms:
{ami}  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: prod
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: prod
  metadataOptions:
    httpTokens: required
  userData: |
{_indent(ud, 4)}"""


CILIUM = """apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cilium
  namespace: kube-system
spec:
  selector:
    matchLabels:
      k8s-app: cilium
  template:
    metadata:
      labels:
        k8s-app: cilium
    spec:
      tolerations:
        - operator: Exists
      containers:
        - name: cilium-agent
          image: quay.io/cilium/cilium:v1.16.1
"""

BROKEN = [
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabbed\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 'unclosed\ndata: {}\n",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Values.name }}\nspec:\n  replicas: [1, 2\n",
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: dup\n  name: dup2\nspec: {}\n",
]


def generate(root: str | os.PathLike, n: int = 10_000, seed: int = 1) -> list[Path]:
    """Write `n` files under `root` (created); return their paths. Deterministic for (n, seed)."""
    r = random.Random(seed)
    root = Path(root)
    paths: list[Path] = []
    karpenter_every = 20  # ~5%
    broken_every = 397  # a few broken files
    json_every = 113
    for i in range(n):
        team = TEAMS[i % len(TEAMS)]
        app = f"{team}-svc-{i // len(TEAMS)}"
        folder = root / "teams" / team / f"app-{(i // len(TEAMS)) // 8:03d}"
        if i % karpenter_every == 7:
            folder = root / "platform" / "karpenter" / team
            if r.random() < 0.5:
                name, text = f"nodepool-{i}.yaml", nodepool(r, team, i)
            elif r.random() < 0.5:
                name, text = f"nodeclass-{i}.yaml", nodeclass(r, team, i, i // karpenter_every)
            else:
                name = f"karpenter-{i}.yaml"
                text = "---\n".join([nodepool(r, team, i), nodeclass(r, team, i, i // karpenter_every)])
        elif i % broken_every == 13:
            name, text = f"broken-{i}.yaml", BROKEN[(i // broken_every) % len(BROKEN)]
        elif i % json_every == 5:
            name = f"{app}-configmap.json"
            text = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": app, "namespace": team},
                               "data": {f"k{j}": str(r.random()) for j in range(r.randint(1, 10))}}, indent=2) + "\n"
        elif i == n // 2:
            folder = root / "platform" / "cilium"
            name, text = "cilium.yaml", CILIUM
        else:
            roll = r.random()
            if roll < 0.35:
                name, text = f"{app}-deployment.yaml", deployment(r, team, app)
            elif roll < 0.55:
                name, text = f"{app}-service.yaml", service(r, team, app)
            elif roll < 0.72:
                name, text = f"{app}-configmap.yaml", configmap(r, team, app)
            elif roll < 0.92:
                name = f"{app}.yaml"
                parts = [deployment(r, team, app), service(r, team, app)]
                if r.random() < 0.5:
                    parts.append(pdb(r, team, app))
                if r.random() < 0.5:
                    parts.append(hpa(r, team, app))
                text = "---\n" + "---\n".join(parts)
            else:
                name, text = f"{app}-cronjob.yaml", cronjob(r, team, app)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def touch_one(root: str | os.PathLike, pattern: str = "teams/**/*-service.yaml") -> Path:
    """Change one file's bytes (append a comment) the same way every time; return it. By default a Service,
    which no cross-file rule reads; `pattern="platform/**/nodepool-*.yaml"` picks a NodePool, which most do."""
    root = Path(root)
    target = sorted(root.glob(pattern))[0]
    with open(target, "a", encoding="utf-8") as fh:
        fh.write("# touched\n")
    return target


if __name__ == "__main__":  # pragma: no cover
    import sys

    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/karplint-bench"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    print(len(generate(out, count)), "files in", out)
