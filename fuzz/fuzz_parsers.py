"""Coverage-guided fuzz targets (atheris) for karplint's parsers, for open-ended runs. Optional: not run by the test
suite. The fuzz targets CI runs on every push (bounded, reproducible, one per reader and per command, from grammars
of Karpenter objects with hostile leaves) are in tests/fuzz/.

    pip install atheris
    python fuzz/fuzz_parsers.py loader -atheris_runs=200000
    python fuzz/fuzz_parsers.py shell  -max_total_time=300

Targets: loader (decode + YAML load), shell (userData script scan and quote removal), taints (kubelet
--register-with-taints grammar), mime (multipart splitter), toml (Bottlerocket settings), engine (a whole
check of one EC2NodeClass whose userData is the input). Any exception escaping a target is a bug: every
problem must become a located finding.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    from karplint.readers.loader import decode, load
    from karplint.readers.source import SourceFile
    from karplint.testing import lint
    from karplint.userdata.bottlerocket import parse_settings
    from karplint.userdata.kubelet import parse_taints
    from karplint.userdata.mime import parse_mime
    from karplint.userdata.shell import parse_script


def _text(data: bytes) -> str:
    return atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))


def loader(data: bytes) -> None:
    src = decode("fuzz.yaml", data)
    if isinstance(src, SourceFile):
        load(src)


def shell(data: bytes) -> None:
    parse_script(_text(data))


def taints(data: bytes) -> None:
    parse_taints(_text(data))


def mime(data: bytes) -> None:
    parse_mime("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n" + _text(data))


def toml(data: bytes) -> None:
    parse_settings(_text(data))


def engine(data: bytes) -> None:
    body = "".join("    " + line + "\n" for line in _text(data).split("\n"))
    findings = lint("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: f}\nspec:\n"
                    "  amiFamily: AL2\n  userData: |\n" + body)
    internal = [f for f in findings if f.code == "KPL006"]
    if internal:
        raise AssertionError(internal[0].message)


TARGETS = {f.__name__: f for f in (loader, shell, taints, mime, toml, engine)}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(TARGETS)}}} [libFuzzer options]")
    target = TARGETS[sys.argv.pop(1)]
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()
