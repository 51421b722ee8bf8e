"""Validation never raises, whatever shape a Karpenter document has."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from karplint.readers.document import Document
from karplint.model import as_resource
from karplint.schema.validate import check
from karplint.readers.source import SourceFile

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=8),
                    st.sampled_from(["${X}", "...", "WhenUnderutilized", "720h", "karpenter.k8s.aws/v1beta1"]))
keys = st.one_of(st.sampled_from(["spec", "template", "disruption", "nodeClassRef", "apiVersion", "requirements",
                                  "expireAfter", "kubelet", "group", "kind", "name", "budgets", "metadata", "status",
                                  "amiSelectorTerms", "consolidateAfter"]), st.text(max_size=6), st.integers())
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(keys, inner, max_size=5)), max_leaves=25)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["NodePool", "EC2NodeClass", "NodeClaim", "Provisioner", "NodeOverlay"]),
       api=st.sampled_from(["karpenter.sh/v1", "karpenter.sh/v1beta1", "karpenter.k8s.aws/v1",
                            "karpenter.k8s.aws/v1beta1", "karpenter.sh/v1alpha5", "karpenter.sh/v1alpha1"]),
       spec=values, version=st.sampled_from(["0.32.10", "0.33.0", "0.37.8", "1.0.0", "1.2.0", "1.14.1", "2.0.0"]))
def test_check_never_raises(kind, api, spec, version):
    data = {"apiVersion": api, "kind": kind, "metadata": {"name": "x"}, "spec": spec}
    doc = Document(SourceFile("fuzz.yaml", "apiVersion: x\n"), 0, data)
    res = as_resource(doc)
    result = check(res, version)
    for err in result.errors if result else ():
        doc.span(err.path)
        doc.key_span(err.path)
        assert err.message
