"""Test support for the drift tests: the generated drift table's lookup, `Pair` (karplint.diff.pairs'), and
builders of NodePools and EC2NodeClasses from plain dicts."""

from __future__ import annotations

import json
import re

from karplint.diff.drift_table import field_rule  # noqa: F401  (the table the tests run against)
from karplint.diff.pairs import Pair  # noqa: F401  (the drift tests build pairs)
from karplint.model import Model, Resource
from karplint.readers import loader

_FIELD = re.compile(r"^(spec\.template\.(?:spec|metadata)\.[A-Za-z]+|spec\.[A-Za-z]+)")


def top(field: str | None) -> str | None:
    """A reason's field down to the field the tests name: the table's rows go deeper in places
    (`spec.metadataOptions.httpTokens`, `spec.blockDeviceMappings[].ebs.iops`), and may go deeper still."""
    if field is None:
        return None
    m = _FIELD.match(field)
    return m.group(1) if m else field



def resource(doc: dict) -> Resource:
    src = loader.decode("r.yaml", json.dumps(doc).encode())
    docs, _ = loader.load(src)
    model = Model()
    model.add(docs)
    return model.resources[0]


def nodepool(requirements=None, *, labels=None, name="general", spec=None, **template_spec) -> Resource:
    """A v1 NodePool; `spec`: fields beside the template (weight, limits, disruption), `template_spec`: fields of
    the template's spec."""
    inner = {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
             "requirements": requirements if requirements is not None else []}
    inner.update(template_spec)
    template = {"spec": inner}
    if labels:
        template["metadata"] = {"labels": labels}
    return resource({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
                     "spec": dict(spec or {}, template=template)})


def nodeclass(api_version="karpenter.k8s.aws/v1", **spec) -> Resource:
    base = {"role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}],
            "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}]}
    base.update(spec)
    base = {k: v for k, v in base.items() if v is not None}
    return resource({"apiVersion": api_version, "kind": "EC2NodeClass", "metadata": {"name": "default"},
                     "spec": base})
