"""An EBS volumeSize outside 1G..64T where Karpenter's validation webhook checks it (KPL148): the v1alpha1 AWS
provider (a v1alpha5 Provisioner's `spec.provider`, an AWSNodeTemplate) from 0.7.0, and the v1beta1 EC2NodeClass
from 0.32.0, until 1.0.0 removed the validation webhooks (from there the v1 CRD types the field: KPL100). A bare
number is a quantity in bytes, so `volumeSize: 100` meant as 100 GiB is 100 bytes, and the webhook refuses the
object: "expected 1G <= 100 <= 64T".

Sources (aws/karpenter-provider-aws): `validateVolumeSize` with `minVolumeSize = 1G`, `maxVolumeSize = 64T` in
`pkg/cloudprovider/aws/apis/v1alpha1/provider_validation.go@v0.7.0`, `pkg/apis/v1alpha1/provider_validation.go@v0.31.0`
and `pkg/apis/v1beta1/ec2nodeclass_validation.go@v0.37.0`; absent from `pkg/apis` at v1.0.0."""

from __future__ import annotations

from decimal import Decimal
from typing import Iterator

from karplint.model import Resource
from karplint.model.versions import V
from karplint.readers.templating import has_placeholder, is_placeholder
from karplint.rules._legacy import judged
from karplint.rules.base import rule
from karplint.schema.celext import parse_quantity

MIN_BYTES = Decimal("1e9")   # 1G
MAX_BYTES = Decimal("64e12")  # 64T
# (group, version, kind) -> (path of the AWS settings, first release whose webhook checks the bounds)
CHECKED = {
    ("karpenter.k8s.aws", "v1alpha1", "AWSNodeTemplate"): (("spec",), "0.7.0"),
    ("karpenter.sh", "v1alpha5", "Provisioner"): (("spec", "provider"), "0.7.0"),
    ("karpenter.k8s.aws", "v1beta1", "EC2NodeClass"): (("spec",), "0.32.0"),
}
WEBHOOK_REMOVED = "1.0.0"


@rule("KPL148", "volume-size-out-of-bounds", category="schema", severity="error",
      summary="EBS volumeSize outside 1G..64T (a bare number is bytes): Karpenter's 0.x webhook rejects the object",
      kinds=("AWSNodeTemplate", "Provisioner", "EC2NodeClass"))
def volume_size_out_of_bounds(res: Resource, ctx) -> Iterator:
    where = CHECKED.get((res.group, res.version, res.kind))
    if where is None or ctx is None:
        return
    base, since = where
    release = ctx.karpenter_version
    if not (V(since) <= release < V(WEBHOOK_REMOVED)) or not judged(res, ctx, legacy=True):
        return
    mappings = res.get(base + ("blockDeviceMappings",))
    if not isinstance(mappings, list):
        return
    for i, mapping in enumerate(mappings):
        ebs = mapping.get("ebs") if isinstance(mapping, dict) else None
        size = ebs.get("volumeSize") if isinstance(ebs, dict) else None
        if isinstance(size, bool) or not isinstance(size, (int, str)) \
                or has_placeholder(size) or is_placeholder(size):
            continue
        text = str(size).strip()
        value = parse_quantity(text)
        if value is None or MIN_BYTES <= value <= MAX_BYTES:
            continue  # (not a quantity: the schema's; in bounds: fine)
        if text.isdigit() and 1 <= int(text) <= 64000:
            help_ = f"help: a bare number is bytes; write the unit: `volumeSize: {text}Gi`"
        else:
            help_ = "help: write a size from 1G to 64T with its unit (e.g. `20Gi`)"
        yield ctx.violation(res, base + ("blockDeviceMappings", i, "ebs", "volumeSize"),
                            f"volumeSize `{text}` is outside 1G..64T, which Karpenter {release}'s webhook accepts\n"
                            f"{help_}\n"
                            f"note: the webhook rejects the {res.kind} ('expected 1G <= {text} <= 64T'), so it is "
                            "never created")
