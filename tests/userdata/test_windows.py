"""karplint.userdata.windows."""

from karplint.userdata import windows


def test_tags_and_bootstrap_call():
    text = "<PowerShell>\n# Start-EKSBootstrap.ps1 in a comment\n& Start-EKSBootstrap.ps1 -EKSClusterName x\n</powershell>\n"
    issues = windows.check(text, base=10)
    assert [i.kind for i in issues] == ["tag", "tag", "bootstrap-call"]
    assert text[issues[2].start - 10:issues[2].end - 10] == "Start-EKSBootstrap.ps1"


def test_bare_statements_are_fine():
    assert windows.check("Write-Host 'hello'\nNew-Item -Path C:\\temp -ItemType Directory\n") == []


def test_render_shape():
    out = windows.render("Write-Host hi", cluster_name="c", endpoint="https://e", ca_bundle=None,
                         kubelet_extra_args=["--max-pods=3"], cluster_dns_ip=None)
    assert out.startswith("<powershell>\nWrite-Host hi\n[string]$EKSBootstrapScriptFile")
    assert out.endswith("-KubeletExtraArgs '--max-pods=3'\n</powershell>")
