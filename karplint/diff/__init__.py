"""`karplint diff`: what Karpenter does when a change is applied. Two sides (`sides`: the base and the head, each
read as `check` reads a project) are paired object by object (`pairs`); per NodePool the drift verdict
(`drift`, over the generated `drift_table`), the rollout under its disruption budgets (`rollout`), the capacity
gained and lost (`capacity`) and the behaviour changes (`behaviour`) make one JSON document
(schemas/diff.schema.json), which `text` and `markdown` render.
"""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 1
DRIFTING = ("all", "some")


def impact(base, head, *, nodes: int | None = None, catalog=None) -> dict[str, Any]:
    """The document for the two sides (`karplint.diff.sides.Side`). `nodes`: the pool size the rollout assumes
    (else the configuration's, else a static pool's replicas, else none)."""
    from karplint.diff.behaviour import behaviour_changes
    from karplint.diff.capacity import capacity_change
    from karplint.diff.drift import nodeclass_drift, nodepool_drift
    from karplint.diff.pairs import location, nodeclass_of, nodeclass_ref, pair_objects
    from karplint.diff.rollout import nodes_for, rollout

    if catalog is None:
        from karplint.provisioning.catalog import load

        catalog = load()
    pairs, problems = pair_objects(base, head)
    # (a file unchanged between the sides has the same problems on both: said once)
    problems = list(dict.fromkeys([*head.loaded.problems, *base.loaded.problems, *problems]))

    def release_of(side, res):
        return side.loaded.karpenter_version(res.doc.path) if res is not None else None

    entries: dict[int, dict] = {}  # id(EC2NodeClass pair) -> its entry (with its reasons), changed ones only
    class_pairs = [p for p in pairs if p.kind in ("EC2NodeClass", "AWSNodeTemplate")]
    class_out = []
    for pair in class_pairs:
        if pair.status == "unchanged":
            continue
        entry = _entry(pair, location)
        release, base_release = release_of(head, pair.head), release_of(base, pair.base)
        try:
            entry["reasons"] = [] if pair.legacy else nodeclass_drift(
                pair.base, pair.head, release=release or base_release, base_release=base_release)
        except Exception as exc:  # noqa: BLE001 - one object karplint cannot analyse never stops the others
            problems.append(_failed(pair, exc))
            entry["reasons"] = [{"object": f"{pair.kind}/{pair.name}", "field": None, "drifts": "unknown",
                                 "why": "not analysed (see problems)", "source": "karplint"}]
        entry["used_by"] = []
        entries[id(pair)] = entry
        if pair.shown:
            class_out.append(entry)

    pools_out = []
    for pair in pairs:
        if pair.kind not in ("NodePool", "Provisioner"):
            continue
        ref_head, ref_base = nodeclass_ref(pair.head), nodeclass_ref(pair.base)
        ref = ref_head if ref_head is not None else ref_base
        class_pair, ambiguous = nodeclass_of(pair, class_pairs)
        nodeclass = entries.get(id(class_pair)) if class_pair is not None else None
        if nodeclass is not None:
            nodeclass["used_by"].append(pair.name)
            if nodeclass not in class_out:  # (read as context: listed because a pool of the paths uses it)
                class_out.append(nodeclass)
        if pair.status == "unchanged" and nodeclass is None and ambiguous is None:
            continue
        entry = _entry(pair, location)
        entry["status"] = "nodeclass_changed" if pair.status == "unchanged" else pair.status
        entry["nodeclass"] = ref
        release, base_release = release_of(head, pair.head), release_of(base, pair.base)
        if pair.legacy:
            entry.update(drift=_legacy_drift(pair), rollout=None, capacity=None, behaviour=[])
            pools_out.append(entry)
            continue
        # (the EC2NodeClass's reasons count for this pool's nodes only when the pool keeps naming it)
        inherited = nodeclass["reasons"] if nodeclass is not None and ref_head == ref_base else []
        if ambiguous is not None:
            inherited = [{"object": f"EC2NodeClass/{ref}", "field": None, "drifts": "unknown", "why": ambiguous,
                          "source": "karplint: the nodeClassRef names an EC2NodeClass by name only"}]
        try:
            drift = nodepool_drift(pair, release=release or base_release, nodeclass_reasons=inherited,
                                   catalog=catalog, base_release=base_release)
            pool = pair.head
            analysed = {
                "drift": drift,
                "rollout": rollout(pool, drift_verdict=drift["verdict"],
                                   nodes=nodes_for(pool, cli_nodes=nodes, config=head.loaded.project.config),
                                   ) if pool is not None else None,
                "capacity": capacity_change(pair, base_model=base.loaded.model, head_model=head.loaded.model,
                                            catalog=catalog, base_release=base_release, release=release),
                "behaviour": behaviour_changes(pair)}
        except Exception as exc:  # noqa: BLE001 - said in `problems` and as an unknown verdict, never a traceback
            problems.append(_failed(pair, exc))
            analysed = {"drift": {"verdict": "unknown", "reasons": [], "not_drifting": [],
                                  "summary": "not analysed: karplint failed on this NodePool (see problems)"},
                        "rollout": None, "capacity": None, "behaviour": []}
        entry.update(analysed)
        pools_out.append(entry)

    doc = {
        "schema_version": SCHEMA_VERSION,
        "base": {"label": base.label, "commit": base.commit, **_releases(base)},
        "head": {"label": head.label, "commit": head.commit, **_releases(head)},
        "nodes_assumed": nodes,
        "nodepools": pools_out,
        "nodeclasses": class_out,
        "problems": problems,
    }
    doc["summary"] = summarise(doc)
    return doc


def _entry(pair, location) -> dict:
    file, line = location(pair.current)
    out = {"name": pair.name, "kind": pair.kind, "cluster": pair.cluster, "status": pair.status,
           "api_version": pair.current.api_version, "file": file, "line": line}
    if pair.base is not None and pair.head is not None:
        base_file, base_line = location(pair.base)
        if (base_file, base_line) != (file, line):
            out["base_file"], out["base_line"] = base_file, base_line
    out["changes"] = pair.changes
    return out


def _failed(pair, exc: Exception) -> str:
    from karplint.diff.pairs import location

    file, line = location(pair.current)
    return (f"{file}:{line}:1: {pair.kind} {pair.name}: not analysed (karplint internal error: "
            f"{type(exc).__name__}: {exc})")


def _legacy_drift(pair) -> dict:
    return {"verdict": "unknown", "reasons": [], "not_drifting": [],
            "summary": f"not analysed: {pair.current.api_version} {pair.kind} is a legacy API (removed in "
                       "Karpenter 0.33; drift of its nodes is not simulated)"}


def _releases(side) -> dict:
    """The release the side deploys, as `check` assigns it to its Karpenter objects: one when they agree, else
    the distinct releases joined ("1.0.6, 1.5.0"); when nothing says, the newest release the tables know, which
    the analysis assumes (`release_assumed`)."""
    from karplint.model.versions import LATEST

    loaded = side.loaded
    seen = []
    for res in [*loaded.model.nodepools(), *loaded.model.nodeclasses()]:
        if res.doc.documentation_example or not loaded.shows(res):
            continue
        v = loaded.karpenter_version(res.doc.path)
        text = str(v) if v is not None else None
        if text not in seen:
            seen.append(text)
    known = [s for s in seen if s is not None]
    if known:
        return {"release": ", ".join(known), "release_assumed": False}
    return {"release": str(LATEST), "release_assumed": True}


# ------------------------------------------------------------------------------------------------- the summary

def summarise(doc: dict) -> list[str]:
    """Sentences for a person, the headline first: which pools' nodes are replaced and at what pace, which never
    roll out, which are added or removed, what capacity changes."""
    from karplint.wording import counted

    pools = doc["nodepools"]
    if not pools and not doc["nodeclasses"]:
        return ["Merging this changes no NodePool or EC2NodeClass."]
    out: list[str] = []
    groups: dict[tuple, list[str]] = {}
    never = []
    for p in pools:
        verdict = p["drift"]["verdict"]
        if verdict not in ("all", "some", "unknown"):
            continue
        ro = p.get("rollout") or {}
        if ro.get("never") and verdict in DRIFTING:
            never.append(p)
            continue
        phrase = _phrase(p["drift"]["summary"]) if verdict != "all" else ""
        groups.setdefault((verdict, phrase, ro.get("summary") or ""), []).append(p["name"])
    for (verdict, phrase, pace), names in groups.items():
        who = _pools(names)
        if verdict == "all":
            text = f"Merging this replaces every node of {who}"
        elif verdict == "some":
            text = f"Merging this replaces some nodes of {who}: {phrase}"
        else:
            text = f"Merging this may replace nodes of {who}: {phrase}"
        out.append(text + (f", {pace}" if pace else "") + ".")
    for p in never:
        why = _phrase(p["rollout"].get("summary") or "", "never rolls out: ") or "its budgets allow no Drifted disruption"
        out.append(f"NodePool {p['name']}'s nodes drift, but the change never rolls out: {why}.")
    added = [p["name"] for p in pools if p["status"] == "added"]
    removed = [p["name"] for p in pools if p["status"] == "removed"]
    replaced = bool(out)
    if removed:  # (deleting a pool deletes its nodes: never summed up as "no node is replaced")
        out.append(f"{'Merging this removes' if not replaced else 'It removes'} {_pools(removed)}: "
                   f"{'its' if len(removed) == 1 else 'their'} nodes are drained and deleted.")
    unused = [nc["name"] for nc in doc["nodeclasses"] if nc["status"] == "changed" and not nc.get("used_by")
              and any(r["drifts"] != "none" for r in nc.get("reasons", []))]
    if unused:  # (its nodes, if any, belong to pools written elsewhere)
        noun = "EC2NodeClass" if len(unused) == 1 else "EC2NodeClasses"
        out.append(f"{'Merging this changes' if not out else 'It changes'} {noun} {', '.join(unused)} in a way "
                   f"that drifts nodes, but no NodePool of these files uses {'it' if len(unused) == 1 else 'them'}: "
                   "the nodes of pools written elsewhere that do are replaced.")
        replaced = True
    if not replaced:
        changed = [p for p in pools if p["status"] in ("changed", "nodeclass_changed")]
        if changed or doc["nodeclasses"]:
            out.append("No running node of the other NodePools is replaced." if removed
                       else "Merging this replaces no node.")
    if added:
        out.append(f"{'Merging this adds' if not out else 'It adds'} {_pools(added)}.")

    for p in pools:  # (what a changed pool gains or loses; an added pool's whole catalog is no news)
        cap = p.get("capacity") or {}
        work = cap.get("workloads") or {}
        moved = cap.get("lost_count") or cap.get("gained_count") or work.get("unschedulable") \
            or work.get("schedulable") or (cap.get("limits") or {}).get("never_launches")
        if cap.get("summary") and p["status"] != "added" and moved:
            out.append(f"NodePool {p['name']}: {cap['summary']}.")
    if doc["problems"]:
        out.append(f"{counted(len(doc['problems']), 'problem')} reading the files (listed below).")
    return out


def _phrase(text: str, prefix: str = "nodes may be replaced: ") -> str:
    """A verdict's summary inside a sentence: without the words the sentence already says, lower-case."""
    if text.startswith(prefix):
        text = text[len(prefix):]
    text = text.rstrip(".")
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _pools(names: list[str]) -> str:
    """"NodePool a", "NodePools a, b and c"; a name in several files once, with its count ("gpu (3 files)")."""
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    shown = [n if c == 1 else f"{n} ({c} files)" for n, c in counts.items()]
    noun = "NodePool" if len(names) == 1 else "NodePools"
    if len(shown) == 1:
        return f"{noun} {shown[0]}"
    return f"{noun} {', '.join(shown[:-1])} and {shown[-1]}"


def drifted_pools(doc: dict) -> list[str]:
    """The pools whose running nodes merging this replaces (verdict all or some)."""
    return [p["name"] for p in doc["nodepools"] if p["drift"]["verdict"] in DRIFTING]
