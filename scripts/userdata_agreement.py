#!/usr/bin/env python3
"""Agreement of karplint's AL2 userData model with the real bootstrap.sh, by class (the full generated set).

Usage: KARPLINT_EKS_AMI_BOOTSTRAP=/path/to/templates/al2/runtime/bootstrap.sh python scripts/userdata_agreement.py [N] [SEED]
(or with a snapshot of awslabs/amazon-eks-ami under /work/.mirror/). Prints agreement per class and every
disagreement. bootstrap.sh is never stored in this repository.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "userdata"))

import sandbox  # noqa: E402
import ud_generator  # noqa: E402


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 120 * len(ud_generator.GENERATORS)
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    reason = sandbox.sandbox_unavailable_reason()
    source = sandbox.find_bootstrap()
    if reason or source is None:
        print(f"cannot run: {reason or 'bootstrap.sh not found (set KARPLINT_EKS_AMI_BOOTSTRAP)'}")
        return 2
    total, bad = Counter(), Counter()
    for case in ud_generator.generate(n, seed):
        total[case.klass] += 1
        why = ud_generator.compare(case, sandbox.run(case.userdata, source))
        if why:
            bad[case.klass] += 1
            print(f"DISAGREE [{case.klass}] {why}\n{case.userdata}")
    for k in sorted(total):
        print(f"{k:12} {total[k] - bad[k]}/{total[k]} agree ({100 * (total[k] - bad[k]) / total[k]:.1f}%)")
    s, b = sum(total.values()), sum(bad.values())
    print(f"{'all':12} {s - b}/{s} agree ({100 * (s - b) / s:.1f}%)")
    return 0 if b == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
