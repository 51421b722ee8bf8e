"""Generate karplint/diff/drift_fields.json (and the table in docs/diff.md) from Karpenter's own Go API types.

    python scripts/gen_drift_table.py --core DIR --aws DIR [--docs docs/diff.md] [--check]

DIR are git directories (bare mirrors are fine: only `git show`/`git ls-tree` are used) of
kubernetes-sigs/karpenter (--core) and aws/karpenter-provider-aws (--aws). For every provider release (release_tags)
it reads, at that tag, the EC2NodeClass types of the provider and the NodePool types of the core commit that the
provider's go.mod pins, finds what each `Hash()` method hashes, walks the struct tree from there honouring
`hash:"ignore"` and `json` tags, and marks each field:

- `hash`: part of the static drift hash; any change drifts every node (areStaticFieldsDrifted).
- `dynamic:<check>`: left out of the hash, decided at runtime by a drift check (DYNAMIC_CHECKS below).
- `ignored`: left out of the hash (`hash:"ignore"`, or outside what Hash() hashes) with no drift check reading it.

Nothing is hand-written about individual fields except DYNAMIC_CHECKS (which function reads which field), and the
script fails loudly when the upstream code no longer looks the way it assumes: a Hash() that hashes something else,
a drift check function that is gone, or a drift reason it does not know.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CORE_REPO = "kubernetes-sigs/karpenter"
AWS_REPO = "aws/karpenter-provider-aws"
OUTPUT = ROOT / "karplint" / "diff" / "drift_fields.json"

# Provider releases: every release tag from v0.32.0 (the first with NodePool and EC2NodeClass) on, patches
# included: patches back-port hash versions (v0.32.9, v0.33.4, ...) and fields (instanceProfile in v0.32.2).
FIRST_RELEASE = (0, 32, 0)
RELEASE_TAG = re.compile(r"v(\d+)\.(\d+)\.(\d+)")


def release_tags(aws: "Git") -> list[str]:
    found = [tuple(map(int, m.groups())) for m in map(RELEASE_TAG.fullmatch, aws.run("tag", "--list").split()) if m]
    return [f"v{a}.{b}.{c}" for a, b, c in sorted(v for v in found if v >= FIRST_RELEASE)]

NODEPOOL, NODECLASS = "NodePool", "EC2NodeClass"
CORE_DRIFT = "pkg/controllers/nodeclaim/disruption/drift.go"
AWS_DRIFT = "pkg/cloudprovider/drift.go"

# Which runtime drift check reads which hash-ignored field. (repo, file, function) is verified at every release
# where the field exists; the citation is the function's line at that release.
DYNAMIC_CHECKS = {
    NODEPOOL: {
        "spec.template.spec.requirements": ("requirements", "core", CORE_DRIFT, "areRequirementsDrifted"),
    },
    NODECLASS: {
        "spec.amiSelectorTerms": ("ami", "aws", AWS_DRIFT, "isAMIDrifted"),
        "spec.subnetSelectorTerms": ("subnets", "aws", AWS_DRIFT, "isSubnetDrifted"),
        "spec.securityGroupSelectorTerms": ("securityGroups", "aws", AWS_DRIFT, "areSecurityGroupsDrifted"),
        "spec.capacityReservationSelectorTerms": (
            "capacityReservations", "aws", AWS_DRIFT, "isCapacityReservationDrifted"),
        "spec.placementGroupSelector": ("placementGroup", "aws", AWS_DRIFT, "isPlacementGroupDrifted"),
        # v1.0.x: kubelet is hash-ignored and compared through the kubelet compatibility hash instead
        "spec.kubelet": ("kubelet", "aws", AWS_DRIFT, "isKubeletConfigurationDrifted"),
    },
}

# Every drift reason the checks can return, and what decides it. A reason not listed here fails the generator:
# someone has to look at the new check and add the fields it reads to DYNAMIC_CHECKS.
KNOWN_REASONS = {
    "NodePoolDrifted": "static hash of the NodePool",
    "ProvisionerDrifted": "alpha Provisioner (not a NodePool field)",
    "RequirementsDrifted": "areRequirementsDrifted",
    "InstanceTypeNotFound": "instance type gone from the cloud provider (no field)",
    "NodeClassDrift": "static hash of the EC2NodeClass",
    "NodeTemplateDrift": "alpha AWSNodeTemplate (not an EC2NodeClass field)",
    "AMIDrift": "isAMIDrifted",
    "SubnetDrift": "isSubnetDrifted",
    "SecurityGroupDrift": "areSecurityGroupsDrifted",
    "CapacityReservationDrift": "isCapacityReservationDrifted",
    "PlacementGroupDrift": "isPlacementGroupDrifted",
}


class UpstreamChanged(Exception):
    """The upstream code no longer looks the way this generator assumes: a person must look."""


class Git:
    def __init__(self, gitdir: str):
        self.gitdir = gitdir

    def run(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", self.gitdir, *args], check=True, capture_output=True,
                              text=True).stdout

    def show(self, rev: str, path: str) -> str:
        return self.run("show", f"{rev}:{path}")

    def ls(self, rev: str, directory: str) -> list[str]:
        return [p for p in self.run("ls-tree", "--name-only", rev, directory.rstrip("/") + "/").split()]

    def sha(self, rev: str) -> str:
        return self.run("rev-parse", f"{rev}^{{commit}}").strip()


# --- Go source, as far as API type declarations need ---------------------------------------------------------

def strip_comments(src: str) -> str:
    """Blank out comments, keeping line numbers and string/tag contents."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c in "`\"":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if (c == '"' and src[j] == "\\") else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * src.count("\n", i, j))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


FIELD = re.compile(r"^\s*(?:(?P<name>[A-Za-z_]\w*)\s+)?(?P<type>[^\s`]+)\s*(?:`(?P<tag>[^`]*)`)?\s*$")
TYPE_DECL = re.compile(r"^type\s+(\w+)\s+(struct\s*\{|=?\s*[\w.\[\]*]+)", re.M)


class GoField:
    def __init__(self, name, gotype, tag, line, embedded):
        self.name, self.type, self.tag, self.line, self.embedded = name, gotype, tag, line, embedded

    def tag_value(self, key: str) -> str | None:
        m = re.search(rf'(?:^|\s){key}:"([^"]*)"', self.tag or "")
        return m.group(1) if m else None


class GoPackage:
    """The struct types of one Go package at one commit: name -> (file, [GoField])."""

    def __init__(self, git: Git, rev: str, directory: str):
        self.structs: dict[str, tuple[str, list[GoField]]] = {}
        self.sources: dict[str, str] = {}
        self.leaves: set[str] = set()
        for path in git.ls(rev, directory):
            if not path.endswith(".go") or path.endswith("_test.go"):
                continue
            text = git.show(rev, path)
            self.sources[path] = text
            self._parse(path, strip_comments(text))

    def _parse(self, path: str, src: str) -> None:
        for m in TYPE_DECL.finditer(src):
            if not m.group(2).startswith("struct"):
                continue
            start = m.end()
            depth, i = 1, start
            while depth:
                depth += {"{": 1, "}": -1}.get(src[i], 0)
                i += 1
            first_line = src.count("\n", 0, start) + 1
            fields = []
            for offset, raw in enumerate(src[start:i - 1].split("\n")):
                if not raw.strip():
                    continue
                fm = FIELD.match(raw)
                if not fm:
                    raise UpstreamChanged(f"{path}:{first_line + offset}: cannot read the field {raw.strip()!r}")
                name, gotype = fm.group("name"), fm.group("type")
                embedded = name is None
                if embedded:
                    name = gotype.lstrip("*").split(".")[-1]
                fields.append(GoField(name, gotype, fm.group("tag"), first_line + offset, embedded))
            self.structs[m.group(1)] = (path, fields)
        # a type with its own JSON encoding (NillableDuration) is one value in YAML, not a struct of fields
        self.leaves.update(re.findall(r"^func \(\w+ \*?(\w+)\) (?:Un)?[Mm]arshalJSON\(", src, re.M))

    def find_line(self, path_suffix: str, pattern: str) -> tuple[str, int]:
        for path, text in self.sources.items():
            if path.endswith(path_suffix):
                for number, line in enumerate(text.split("\n"), 1):
                    if re.search(pattern, line):
                        return path, number
        raise UpstreamChanged(f"no line matching {pattern!r} in {path_suffix}")


def element_type(gotype: str) -> tuple[str, list[str]]:
    """('[]*BlockDeviceMapping') -> ('BlockDeviceMapping', ['[]']); maps are leaves ('map')."""
    suffixes = []
    while True:
        gotype = gotype.lstrip("*")
        if gotype.startswith("[]"):
            suffixes.append("[]")
            gotype = gotype[2:]
        elif gotype.startswith("map["):
            return "map", suffixes
        else:
            return gotype, suffixes


# --- one release ---------------------------------------------------------------------------------------------

def core_rev_for(aws: Git, core: Git, tag: str) -> str:
    gomod = aws.show(tag, "go.mod")
    if re.search(r"^replace\s.*(sigs\.k8s\.io/karpenter|aws/karpenter-core)\s", gomod, re.M):
        raise UpstreamChanged(f"{AWS_REPO} {tag}: go.mod replaces the core module; resolve it by hand")
    m = re.search(r"^\s*(?:require\s+)?(?:sigs\.k8s\.io/karpenter|github\.com/aws/karpenter-core)\s+(v\S+)",
                  gomod, re.M)
    if not m:
        raise UpstreamChanged(f"{AWS_REPO} {tag}: go.mod names no karpenter core module")
    version = m.group(1)
    pseudo = re.search(r"-(?:0\.)?\d{14}-([0-9a-f]{12})$", version)
    return core.sha(pseudo.group(1) if pseudo else version)


# What every Hash() passes to hashstructure at every release (checked): list order does not matter, nor does a
# field set to its zero value or nil rather than left out.
HASH_OPTIONS = {"SlicesAsSets", "IgnoreZeroValue", "ZeroNil"}


def hash_roots(pkg: GoPackage, kind: str, where: str) -> tuple[str, int, str, list]:
    """Which part of the object Hash() hashes, and its HashOptions, checked against what the table assumes."""
    for path, text in pkg.sources.items():
        m = re.search(rf"func \(in \*{kind}\) Hash\([^)]*\) string \{{(.*?)\n\}}", text, re.S)
        if not m:
            continue
        body = strip_comments(m.group(1))
        line = text.count("\n", 0, m.start()) + 1
        hashed = re.search(r"hashstructure\.Hash\(\s*(?:\[\](?:\w+|interface\{\})\{\s*)?in\.(\w+(?:\.\w+)*)", body)
        if not hashed:
            raise UpstreamChanged(f"{where} {path}:{line}: {kind}.Hash() hashes something unexpected")
        options = set(re.findall(r"(\w+):\s*true", body))
        if options != HASH_OPTIONS:
            raise UpstreamChanged(f"{where} {path}:{line}: {kind}.Hash() options changed: {sorted(options)}")
        extra = []
        for offset, text_line in enumerate(m.group(1).split("\n")):
            if re.match(r"\s*in\.AMIFamily\(\),", text_line):
                extra.append(("spec.amiFamily", line + offset))
        return path, line, hashed.group(1), extra
    raise UpstreamChanged(f"{where}: no {kind}.Hash()")


# Functions of the drift files that decide drift without reading a field of their own in DYNAMIC_CHECKS.
NOT_FIELD_CHECKS = {"isDrifted", "isNodeClassDrifted", "areStaticFieldsDrifted", "instanceTypeNotFound",
                    "IsDrifted"}


def drift_reasons(git: Git, rev: str, path: str, where: str) -> None:
    """Fail on a drift reason or a drift check function that the table does not know."""
    text = git.show(rev, path)
    known = NOT_FIELD_CHECKS | {entry[3] for checks in DYNAMIC_CHECKS.values() for entry in checks.values()}
    for function in re.findall(r"^func (?:\([^)]*\) )?(\w+)\(", text, re.M):
        if re.match(r"(is|are)\w*Drifted$", function) and function not in known:
            raise UpstreamChanged(f"{where} {path}: drift check {function} is new: map the fields it reads in "
                                  "DYNAMIC_CHECKS")
    for reason in re.findall(r'cloudprovider\.DriftReason\s*=\s*"(\w+)"', text):
        if reason not in KNOWN_REASONS:
            raise UpstreamChanged(f"{where} {path}: drift reason {reason} is new: map the fields its check reads "
                                  "in DYNAMIC_CHECKS and add it to KNOWN_REASONS")


def hash_version(pkg: GoPackage, kind: str, repo_key: str) -> dict | None:
    """The hash version constant: areStaticFieldsDrifted compares hashes only when a node's hash version equals
    the object's, so a change that lands with an upgrade across a version bump drifts nothing by hash."""
    for path, text in pkg.sources.items():
        m = re.search(rf'^const {kind}HashVersion = "(\w+)"', text, re.M)
        if m:
            return {"version": m.group(1), "repo": repo_key, "file": path, "line": text.count("\n", 0, m.start()) + 1}
    return None  # older releases have no version: every hash compares


def drift_gate(core: Git, core_sha: str, aws: Git, aws_sha: str) -> dict | None:
    """Releases where drift sits behind the Drift feature gate, and the chart's default for it."""
    drift_go = core.show(core_sha, CORE_DRIFT)
    m = re.search(r"FeatureGates\.Drift\b", drift_go)
    if not m:
        return None
    values = aws.show(aws_sha, "charts/karpenter/values.yaml")
    default = re.search(r"^\s+drift:\s*(true|false)\s*$", values, re.M)
    if not default:
        raise UpstreamChanged(f"{AWS_REPO}@{aws_sha[:7]}: drift is gated but the chart sets no default")
    return {"default": default.group(1) == "true",
            "gate": {"repo": "core", "file": CORE_DRIFT, "line": drift_go.count("\n", 0, m.start()) + 1},
            "chart": {"repo": "aws", "file": "charts/karpenter/values.yaml",
                      "line": values.count("\n", 0, default.start()) + 2}}


def function_line(git: Git, rev: str, path: str, function: str, where: str) -> int:
    text = git.show(rev, path)
    m = re.search(rf"^func (?:\([^)]*\) )?{function}\(", text, re.M)
    if not m:
        raise UpstreamChanged(f"{where} {path}: the drift check {function} is gone; update DYNAMIC_CHECKS")
    return text.count("\n", 0, m.start()) + 1


def walk(pkg: GoPackage, typename: str, prefix: str, state: dict, emit) -> None:
    """Emit a row for every field under typename; state = {"how", "cite"} inherited from the parent."""
    if typename not in pkg.structs or typename in pkg.leaves:
        return
    file, fields = pkg.structs[typename]
    for field in fields:
        json_name = (field.tag_value("json") or "").split(",")
        name, inline = json_name[0], "inline" in json_name[1:]
        if name == "-" or not field.name[0].isupper():
            continue  # not in the API (json:"-") or not hashed (unexported)
        base, suffixes = element_type(field.type)
        if field.embedded and (inline or not name):
            if base not in pkg.structs:
                emit(prefix, None, None)  # fields of another package's type (v1.NodeSelectorRequirement) inline
            else:
                walk(pkg, base, prefix, state, emit)
            continue
        path = f"{prefix}.{name or field.name}" if prefix else (name or field.name)
        here = dict(state)
        if state["how"] == "hash" and field.tag_value("hash") in ("ignore", "-"):
            here = {"how": "ignored", "cite": (file, field.line)}
        emit(path, here, (file, field.line))
        walk(pkg, base, path + "".join(suffixes), here, emit)


def release_rows(core: Git, aws: Git, tag: str) -> dict:
    aws_sha = aws.sha(tag)
    core_sha = core_rev_for(aws, core, tag)
    api = "v1beta1" if tag.startswith("v0.") else "v1"
    where_core, where_aws = f"{CORE_REPO}@{core_sha[:7]}", f"{AWS_REPO}@{tag}"
    drift_reasons(core, core_sha, CORE_DRIFT, where_core)
    drift_reasons(aws, aws_sha, AWS_DRIFT, where_aws)
    result = {"api": api, "commits": {"core": core_sha, "aws": aws_sha}, "kinds": {}, "hash_versions": {},
              "drift_gate": drift_gate(core, core_sha, aws, aws_sha)}
    for kind, git, sha, where in ((NODEPOOL, core, core_sha, where_core), (NODECLASS, aws, aws_sha, where_aws)):
        pkg = GoPackage(git, sha, f"pkg/apis/{api}")
        hash_file, hash_line, hashed, also_hashed = hash_roots(pkg, kind, where)
        expected = {NODEPOOL: "Spec.Template", NODECLASS: "Spec"}[kind]
        if hashed != expected:
            raise UpstreamChanged(f"{where} {hash_file}:{hash_line}: {kind}.Hash() hashes in.{hashed}, "
                                  f"not in.{expected}")
        result["hash_versions"][kind] = hash_version(pkg, kind, "core" if git is core else "aws")
        hashed_path = ".".join(part[0].lower() + part[1:] for part in hashed.split("."))
        repo_key = "core" if git is core else "aws"
        rows: dict[str, dict] = {}

        def emit(path, state, declared, rows=rows, repo_key=repo_key):
            if state is None:  # the row at `path` has more fields than this table lists
                rows[path.removesuffix("[]")]["open"] = True
                return
            how = state["how"]
            cite = declared if how == "hash" else state["cite"]
            rows[path] = {"how": how, "repo": repo_key, "file": cite[0], "line": cite[1]}

        spec_type = f"{kind}Spec"
        outside = {"how": "ignored", "cite": (hash_file, hash_line)}
        inside = {"how": "hash", "cite": (hash_file, hash_line)}
        if hashed_path == "spec":
            emit("spec", inside, (hash_file, hash_line))
            walk(pkg, spec_type, "spec", inside, emit)
        else:  # spec.template: the rest of spec is outside the hash
            walk(pkg, spec_type, "spec", outside, emit)
            for path in [p for p in rows if p == hashed_path or p.startswith(hashed_path + ".")]:
                del rows[path]
            template_type = next(f for f in pkg.structs[spec_type][1] if f.tag_value("json").split(",")[0]
                                 == hashed_path.split(".")[-1])
            emit(hashed_path, inside, (pkg.structs[spec_type][0], template_type.line))
            walk(pkg, element_type(template_type.type)[0], hashed_path, inside, emit)
        # hash-ignored fields that a drift check reads at runtime
        for path, (check, repo_name, file, function) in DYNAMIC_CHECKS[kind].items():
            if path not in rows:
                continue
            if rows[path]["how"] == "hash":
                continue  # hashed as well (e.g. placementGroupSelector): any change drifts every node
            check_git, check_sha = (core, core_sha) if repo_name == "core" else (aws, aws_sha)
            line = function_line(check_git, check_sha, file, function, where)
            for sub in [p for p in rows if p == path or p.startswith(path + ".") or p.startswith(path + "[]")]:
                rows[sub].update(how=f"dynamic:{check}", repo=repo_name, file=file, line=line)
        for path, line in also_hashed:
            # Hash() hashes the resolved AMI family, in.AMIFamily(), instead of the hash-ignored field: a change
            # of amiFamily drifts unless it names the family the alias already resolved to
            if path in rows:
                rows[path].update(how="hash", repo=repo_key, file=hash_file, line=line)
        result["kinds"][kind] = rows
    return result




# --- compaction ----------------------------------------------------------------------------------------------

def compact(per_release: dict[str, dict], tags: list[str]) -> dict:
    """Rows keyed by (kind, api); each row a list of ranges of consecutive releases with the same verdict and
    source file; the line at each release is stored where it changes, the commit once per release."""
    releases = [tag.lstrip("v") for tag in tags]
    doc = {
        "generated_by": "scripts/gen_drift_table.py",
        "repos": {"core": CORE_REPO, "aws": AWS_REPO},
        "hash_options": sorted(HASH_OPTIONS),
        "releases": [{"release": r, "api": per_release[r]["api"],
                      "core": per_release[r]["commits"]["core"], "aws": per_release[r]["commits"]["aws"],
                      "drift_gate": per_release[r]["drift_gate"], "hash_versions": per_release[r]["hash_versions"]}
                     for r in releases],
        "tables": {},
    }
    for kind in (NODEPOOL, NODECLASS):
        for api in ("v1beta1", "v1"):
            group = "karpenter.sh" if kind == NODEPOOL else "karpenter.k8s.aws"
            its = [r for r in releases if per_release[r]["api"] == api]
            paths: list[str] = []
            for r in its:
                paths += [p for p in per_release[r]["kinds"][kind] if p not in paths]
            table = {}
            for path in sorted(paths, key=path_sort_key):
                ranges = []
                for r in its:
                    row = per_release[r]["kinds"][kind].get(path)
                    if row is None:
                        continue
                    key = (row["how"], row["repo"], row["file"], row.get("open", False))
                    last = ranges[-1] if ranges else None
                    if last and last["_key"] == key and its.index(last["to"]) == its.index(r) - 1:
                        last["to"] = r
                        if last["_line"] != row["line"]:
                            last["lines"][r] = last["_line"] = row["line"]
                    else:
                        ranges.append({"from": r, "to": r, "how": row["how"], "repo": row["repo"],
                                       "file": row["file"], "lines": {r: row["line"]}, "_key": key,
                                       "_line": row["line"]})
                        if row.get("open"):
                            ranges[-1]["open"] = True
                for rng in ranges:
                    del rng["_key"], rng["_line"]
                table[path] = ranges
            doc["tables"][f"{kind} {group}/{api}"] = table
    return doc


def render_json(doc: dict) -> str:
    """Indented down to the rows, one row (all its ranges) per line: small, and reviewable in a diff."""
    lines = ["{"]
    for i, (key, value) in enumerate(doc.items()):
        comma = "," if i < len(doc) - 1 else ""
        if key == "tables":
            lines.append(' "tables": {')
            for j, (name, rows) in enumerate(value.items()):
                lines.append(f"  {json.dumps(name)}: {{")
                for k, (path, ranges) in enumerate(rows.items()):
                    lines.append(f"   {json.dumps(path)}: {json.dumps(ranges)}" + ("," if k < len(rows) - 1 else ""))
                lines.append("  }" + ("," if j < len(value) - 1 else ""))
            lines.append(" }" + comma)
        elif key == "releases":
            lines.append(' "releases": [')
            lines += [f"  {json.dumps(r)}" + ("," if k < len(value) - 1 else "") for k, r in enumerate(value)]
            lines.append(" ]" + comma)
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{comma}")
    return "\n".join(lines) + "\n}\n"


def path_sort_key(path: str):
    return path.replace("[]", "").split(".")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--core", required=True, help="git directory of kubernetes-sigs/karpenter")
    parser.add_argument("--aws", required=True, help="git directory of aws/karpenter-provider-aws")
    parser.add_argument("--output", default=str(OUTPUT))
    parser.add_argument("--docs", help="rewrite the drift table between the markers of this Markdown file")
    parser.add_argument("--check", action="store_true", help="fail if the files differ from what is generated")
    args = parser.parse_args(argv)
    core, aws = Git(args.core), Git(args.aws)
    try:
        tags = release_tags(aws)
        per_release = {tag.lstrip("v"): release_rows(core, aws, tag) for tag in tags}
    except (UpstreamChanged, subprocess.CalledProcessError) as err:
        detail = getattr(err, "stderr", None) or err
        print(f"gen_drift_table: {detail}", file=sys.stderr)
        return 1
    text = render_json(compact(per_release, tags))
    stale = []
    output = Path(args.output)
    if not output.exists() or output.read_text(encoding="utf-8") != text:
        stale.append(args.output)
        if not args.check:
            output.write_text(text, encoding="utf-8")
    if args.docs:
        from karplint.diff import drift_table
        drift_table.reload(json.loads(text))
        before = Path(args.docs).read_text(encoding="utf-8")
        try:
            after = drift_table.replace_docs_section(before)
        except ValueError as err:
            print(f"gen_drift_table: {args.docs}: {err}", file=sys.stderr)
            return 1
        if before != after:
            stale.append(args.docs)
            if not args.check:
                Path(args.docs).write_text(after, encoding="utf-8")
    if args.check and stale:
        print("gen_drift_table: out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
