"""The cost of reading embedded YAML: a Terraform-heavy tree, checked uncached with the karplint on PYTHONPATH.

    python scripts/embedded_bench.py -n 2000 [--reps 1] [--keep DIR]

The tree: per 10 files, 3 `.tf` files with `kubectl_manifest` heredocs (Karpenter's examples/v1 wrapped, as
terraform-aws-modules writes them), 4 `.tf` files without Kubernetes YAML (a VPC module call, a Helm release with
a values heredoc), 1 README.md with a yaml block, 1 shell script with a `kubectl apply` heredoc, 1 plain .yaml.
Prints wall and CPU seconds (worker processes included) of `karplint check . --no-cache -j 1`.

Measured at the commit that added it (2 shared cores, load average 3-4; CPU is the steadier number), 2000 files:
main (reads only the 200 .yaml) 0.72 s CPU; with embedded YAML (1,200 objects in .tf/.md/.sh/.yaml) 2.96 s; the
same 1,200 objects all as .yaml files 3.52 s; 2,000 .tf files with no Kubernetes YAML 0.10 s (main) vs 0.19 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = Path(os.environ.get("KARPLINT_SHARED", HERE.parents[1] / "shared")) / "karpenter" / "examples" / "v1"

PLAIN_TF = '''module "vpc_{i}" {{
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.0"
  name    = "vpc-{i}"
  cidr    = "10.{j}.0.0/16"
  azs     = ["eu-west-1a", "eu-west-1b"]
}}

resource "helm_release" "app_{i}" {{
  name  = "app-{i}"
  chart = "app"
  values = [<<-EOT
    replicaCount: 2
    nodeSelector:
      kind: general
  EOT
  ]
}}
'''


def heredoc(yaml: str, i: int) -> str:
    body = "".join("    " + line if line.strip() else line for line in yaml.replace("${", "$${").splitlines(True))
    return f'resource "kubectl_manifest" "karpenter_{i}" {{\n  yaml_body = <<-YAML\n{body}  YAML\n}}\n'


def generate(root: Path, n: int) -> None:
    examples = [p.read_text() for p in sorted(EXAMPLES.glob("*.yaml"))]
    for i in range(n):
        d = root / f"env{i % 20}" / f"stack{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        ex = examples[i % len(examples)]
        slot = i % 10
        if slot < 3:
            (d / f"karpenter{i}.tf").write_text(heredoc(ex, i))
        elif slot < 7:
            (d / f"main{i}.tf").write_text(PLAIN_TF.format(i=i, j=i % 250))
        elif slot == 7:
            (d / f"README{i}.md").write_text(f"# Stack {i}\n\nApply:\n\n```yaml\n{ex}```\n")
        elif slot == 8:
            (d / f"apply{i}.sh").write_text(f"#!/bin/sh\ncat <<'EOF' | kubectl apply -f -\n{ex}EOF\n")
        else:
            (d / f"nodepool{i}.yaml").write_text(ex)


def measure(root: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    subprocess.run([sys.executable, "-m", "karplint", "check", ".", "--no-cache", "-j", "1", "--exit-zero", "-q"],
                   cwd=root, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--keep", type=Path, default=None)
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="karplint-tf-bench-"))
    if not any(root.iterdir()) if root.exists() else True:
        root.mkdir(parents=True, exist_ok=True)
        generate(root, args.n)
    for _ in range(args.reps):
        wall, cpu = measure(root)
        print(f"{args.n} files: wall {wall:.2f} s, CPU {cpu:.2f} s")


if __name__ == "__main__":
    main()
