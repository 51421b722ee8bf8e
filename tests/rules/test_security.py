"""Security rules (KPL701-KPL706) on tests/fixtures/catalog/security/."""

from __future__ import annotations

from pathlib import Path

from karplint.testing import codes, lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "security"
BAD = (FIXTURES / "security_bad.yaml").read_text(encoding="utf-8")
GOOD = (FIXTURES / "security_good.yaml").read_text(encoding="utf-8")


def _codes(text: str, **kw):
    return [c for c in codes(lint(text, **kw)) if c[0].startswith("KPL7")]


def test_bad():
    assert _codes(BAD) == [
        ("KPL706", 9, 14),  # al2023@latest
        ("KPL701", 16, 17),  # httpTokens: optional
        ("KPL702", 17, 30),  # hop limit 3
        ("KPL703", 22, 20),  # encrypted: false
        ("KPL704", 30, 30),  # AKIA...
        ("KPL704", 31, 32),  # aws_secret_access_key = "..." (extra-indented line)
        ("KPL704", 32, 36),  # Bearer
        ("KPL704", 33, 30),  # https://deploy:pass@
        ("KPL704", 35, 5),  # -----BEGIN RSA PRIVATE KEY-----
        ("KPL705", 44, 1),  # no limits: points at `spec`
        ("KPL705", 58, 3),  # limits: {}
    ]


def test_good():
    assert _codes(GOOD) == []


def test_secret_spans_cover_exactly_the_secret():
    spans = [(f.line, f.column, f.span.end_column) for f in lint(BAD) if f.code == "KPL704"]
    lines = BAD.splitlines()
    got = [lines[line - 1][col - 1:end - 1] for line, col, end in spans]
    assert got[:4] == ["AKIAZ7Q4M2XK9TBW3VLP", "Zx9/Qm2+Lp7Rt4Vw8Ny1Bc5Df3Gh6Jk0Mn2Pq4Rs",
                       "eyJhbGciOiJIUzI1NiJ9.abc.def", "s3cr3tP4ss"]
    assert got[4] == "-----BEGIN RSA PRIVATE KEY-----"


def test_secrets_are_never_echoed():
    for f in lint(BAD):
        if f.code == "KPL704":
            for secret in ("AKIAZ7Q4M2XK9TBW3VLP", "Zx9/Qm2+Lp7Rt4Vw8Ny1Bc5Df3Gh6Jk0Mn2Pq4Rs", "s3cr3tP4ss",
                           "MIIEowIBAAKCAQEA", "eyJhbGciOiJIUzI1NiJ9"):
                assert secret not in f.message


def test_quoted_userdata_points_at_the_scalar():
    text = BAD.split("---")[0].split("  userData: |")[0] + \
        '  userData: "#!/bin/bash\\nexport AWS_ACCESS_KEY_ID=AKIAZ7Q4M2XK9TBW3VLP\\n"\n'
    found = [c for c in _codes(text) if c[0] == "KPL704"]
    assert found == [("KPL704", 27, 13)]


def test_hop_limit_option():
    assert not [c for c in _codes(BAD, config={"options": {"max-hop-limit": 3}}) if c[0] == "KPL702"]
    assert [c for c in _codes(BAD, config={"options": {"max-hop-limit": 2}}) if c[0] == "KPL702"]


def test_v1beta1_nodeclass_is_checked_too():
    text = BAD.replace("karpenter.k8s.aws/v1\n", "karpenter.k8s.aws/v1beta1\n", 1)
    assert ("KPL701", 16, 17) in _codes(text)


def test_catalog_b_rules_are_registered():
    from karplint.rules import get_rule

    expected = {
        "KPL501": ("tolerates-dead-node", "repair", "warning"),
        "KPL502": ("blanket-toleration", "repair", "warning"),
        "KPL503": ("tolerates-disrupted-taint", "repair", "warning"),
        "KPL504": ("node-repair-assumption", "repair", "info"),
        "KPL601": ("unknown-nodeclass", "references", "error"),
        "KPL602": ("nodeclassref-group-kind", "references", "error"),
        "KPL603": ("unreferenced-nodeclass", "references", "info"),
        "KPL604": ("duplicate-resource-name", "references", "error"),
        "KPL605": ("unsatisfiable-requirements", "references", "error"),
        "KPL606": ("misspelt-label-key", "references", "error"),
        "KPL607": ("requirement-contradicts-ami-family", "references", "error"),
        "KPL608": ("overlapping-nodepools", "references", "info"),
        "KPL701": ("imdsv1-enabled", "security", "warning"),
        "KPL702": ("imds-hop-limit", "security", "warning"),
        "KPL703": ("unencrypted-ebs", "security", "warning"),
        "KPL704": ("secret-in-userdata", "security", "error"),
        "KPL705": ("nodepool-without-limits", "security", "info"),
        "KPL706": ("ami-alias-latest", "security", "info"),
    }
    for code, (slug, category, severity) in expected.items():
        r = get_rule(code)
        assert (r.slug, r.category, r.severity) == (slug, category, severity), code
    assert get_rule("KPL501").options == {"repair-window-seconds": 1800}
    assert get_rule("KPL702").options == {"max-hop-limit": 1}


def _hop_limit_findings(hop: int, config=None):
    text = BAD.split("---")[0]
    text = text.replace("httpPutResponseHopLimit: 3", f"httpPutResponseHopLimit: {hop}").replace(
        "httpTokens: optional", "httpTokens: required")
    return [f for f in lint(text, config=config) if f.code == "KPL702"]


def test_hop_limit_messages_say_what_a_pod_can_do_and_how_to_allow_it():
    # Karpenter v1's default is 1, "changed to disable IMDS access from containers not on the host network"
    # (aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md@v1.14.1#L132); 2 is AWS's
    # setting for containers that use IMDSv2.
    (two,) = _hop_limit_findings(2)
    assert (two.line, two.column, two.severity) == (17, 30, "warning")
    assert two.message == ("httpPutResponseHopLimit 2 lets pods get IMDSv2 tokens\n"
                           "help: use 1 (Karpenter v1's default is 1); if an agent in a pod needs the instance "
                           "metadata, use 2 and set `max-hop-limit = 2`\n"
                           "note: containers that are not on the host network can then take the node role's "
                           "credentials")
    assert _hop_limit_findings(2, {"options": {"max-hop-limit": 2}}) == []
    (three,) = _hop_limit_findings(3, {"options": {"max-hop-limit": 2}})
    assert three.message == ("httpPutResponseHopLimit 3 is more than pods need\n"
                             "help: use 2: it reaches pods on the node's pod network\n"
                             "note: AWS recommends 2 for containers that use IMDSv2; the larger the number, the "
                             "further instance metadata requests can travel")
