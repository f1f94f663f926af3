"""`--explain`: the answer's reason in sentences, each tied to the numbers of the JSON document.

Every sentence is read off the document (report.py) that the tool already printed: the problem's
tile and accesses, the answer's steps, counts and storage, the rank proof's bank matrix and its
varying bits, the runners-up with their counts, the families' witnesses, the given pitch. Nothing
here measures or decides anything; the document's fields are the facts and this module words them.

A sentence is ``{"text": ..., "refs": {pointer: value}}``: every value the text shows is one of
``refs``, and each ref is a JSON pointer (RFC 6901) into the same document with the value found
there. ``_say`` builds both from one template, so the text cannot show a number it does not point
at (tests/test_explain.py resolves every pointer and checks every number of the text).
"""
from __future__ import annotations

import re

from .families import record

MAX_CHEAPER = 4  # runners-up explained: the cheaper ones that fail, at most this many


def resolve(doc, pointer: str):
    """The value at a JSON pointer ("/answer/per_access/0/worst_wavefronts")."""
    node = doc
    for part in pointer.split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def _shown(value) -> str:
    if isinstance(value, list):
        return ", ".join(_shown(v) for v in value)
    return str(value)


def _say(doc: dict, template: str, **pointers: str) -> dict:
    """One sentence: ``{name}`` in ``template`` is the value at ``pointers[name]``."""
    refs = {p: resolve(doc, p) for p in pointers.values()}
    text = re.sub(r"\{(\w+)\}", lambda m: _shown(refs[pointers[m.group(1)]]), template)
    return {"text": text, "refs": refs}


def explain(doc: dict) -> list[dict]:
    """The sentences of a solve's or a --check's document, in reading order: what the answer is,
    what it does to each access (and the proof why), what each step parameter moves, why each
    cheaper candidate fails, and what padding would cost instead."""
    out = [_summary(doc)]
    for i in range(len(doc["answer"]["per_access"])):
        out += _access(doc, i)
    for k in range(len(doc["answer"].get("swizzles") or [])):
        out += _step(doc, k)
    out += _tma(doc) + _cheaper(doc) + _padding(doc) + _minimal(doc)
    return out


def _minimal(doc: dict) -> list[dict]:
    """A failed --check: the layout the search finds instead."""
    check = doc.get("check") or {}
    if check.get("passed") or not check.get("minimal"):
        return []
    return [_say(doc, "The minimal layout for these accesses is {minimal}.", minimal="/check/minimal")]


def _summary(doc: dict) -> dict:
    checked = "check" in doc
    verb = "as checked leaves" if checked else "leaves"
    return _say(doc, "{name} " + verb + " {excess} excess wavefronts over all accesses, in {storage} B of shared "
                "memory (status {status}).", name="/answer/name", excess="/answer/excess_wavefronts",
                storage="/answer/storage_bytes", status="/status")


def _access(doc: dict, i: int) -> list[dict]:
    a, e = f"/answer/per_access/{i}", f"/proof/accesses/{i}"
    out = [_say(doc, "Unswizzled, {spec} takes {bw} wavefronts at worst ({bt} over the tile); {name} takes {w} "
                "({t}), against a lower bound of {lb}.", spec=f"{a}/spec", bw=f"{a}/baseline_worst_wavefronts",
                bt=f"{a}/baseline_total_wavefronts", name="/answer/name", w=f"{a}/worst_wavefronts",
                t=f"{a}/total_wavefronts", lb=f"{a}/lower_bound")]
    proof = doc["proof"]["accesses"][i]
    if "gf2" in proof:
        g = f"{e}/gf2"
        out.append(_say(doc, "A phase of {spec} varies {n} offset bits above its {v}-byte vectors ({labels}); "
                        "the bank bits ({banks}) must tell them apart: under {name} the bank matrix has rank {rank}, "
                        "so a phase takes {wf} wavefronts.", spec=f"{a}/spec", n=f"{g}/varying",
                        v=f"/problem/accesses/{i}/vector_bytes", labels=f"{g}/varying_bits", banks=f"{g}/bank_bits",
                        name="/answer/name", rank=f"{g}/rank", wf=f"{g}/wavefronts"))
    else:
        why = " ({why})" if "gf2_unavailable" in proof else ""
        extra = {"why": f"{e}/gf2_unavailable"} if why else {}
        out.append(_say(doc, "{spec} has no rank proof under {name}" + why + ": the simulator checked all {n} "
                        "placements, worst {w} wavefronts.", spec=f"{a}/spec", name="/answer/name",
                        n=f"{e}/placements_checked", w=f"{e}/worst_wavefronts", **extra))
    if "collision" in proof:
        c = f"{e}/collision"
        out.append(_say(doc, "The conflict: lanes at ({ra}, {ca}) and ({rb}, {cb}) read words {wa} and {wb}, both in "
                        "bank {bank}.", ra=f"{c}/a/row", ca=f"{c}/a/col", rb=f"{c}/b/row", cb=f"{c}/b/col",
                        wa=f"{c}/a/word", wb=f"{c}/b/word", bank=f"{c}/bank"))
    return out


def _widest(doc: dict) -> int:
    """The access with the widest vector (the one M must keep whole)."""
    accesses = doc["problem"]["accesses"]
    return max(range(len(accesses)), key=lambda i: (accesses[i]["vector_bytes"], -i))


def _step(doc: dict, k: int) -> list[dict]:
    """What one step's parameters move: CuTe's B, M, S (on element offsets, or on byte addresses
    within each panel of a column-panel layout); XorCols' B, M and row shift."""
    s, step = f"/answer/swizzles/{k}", doc["answer"]["swizzles"][k]
    if step.get("B") is None or step.get("M") is None or step.get("unit") not in ("element", "byte"):
        return []
    v, unit = _widest(doc), "element offset" if step["unit"] == "element" else "byte address"
    where = f" within each {step['applies_to']}" if step.get("applies_to") not in (None, "column") else ""
    fewer = "" if "check" in doc else " (the runners-up with fewer below show what fewer leave)"
    out = [_say(doc, "B = {b}: the step XORs {b} bits of the " + unit + " into {b} others" + where + fewer + ".",
                b=f"{s}/B"),
           _say(doc, "M = {m}: the bits it writes start at " + unit + " bit {m}, so each {vb}-byte vector of {spec} "
                "({eb}-byte elements) moves whole.", m=f"{s}/M", vb=f"/problem/accesses/{v}/vector_bytes",
                spec=f"/problem/accesses/{v}/spec", eb="/problem/elem_bytes")]
    if step.get("S") is not None and step["unit"] == "element":
        at = "/answer/padding/row_length" if "padding" in doc["answer"] else "/problem/row_length"
        pitch = resolve(doc, at)
        reads_rows = pitch & (pitch - 1) == 0 and 1 << (step["M"] + step["S"]) >= pitch
        what = ("row bits: rows that fell in the same banks are moved apart" if reads_rows
                else "column bits of the same row")
        out.append(_say(doc, "S = {sv}: it reads the bits {sv} above those it writes; with rows {pitch} elements "
                        "apart those are " + what + ".", sv=f"{s}/S", pitch=at))
    elif step.get("S") is not None:
        out.append(_say(doc, "S = {sv}: it reads the bits {sv} above those it writes.", sv=f"{s}/S"))
    elif step.get("row_shift") is not None:
        out.append(_say(doc, "The column XOR takes the row index shifted right by {a}: consecutive rows get "
                        "different column permutations.", a=f"{s}/row_shift"))
    return out


def _tma(doc: dict) -> list[dict]:
    ans = doc["answer"]
    if not ans.get("byte_cute"):
        return [_say(doc, "{name} is the {mode} TMA swizzle mode.", name="/answer/name", mode="/answer/tma_mode")
                ] if ans.get("tma_mode") else []
    if ans.get("tma_mode"):
        return [_say(doc, "In bytes it is {byte} ({eb}-byte elements), the {mode} TMA swizzle mode.",
                     byte="/answer/byte_cute", eb="/problem/elem_bytes", mode="/answer/tma_mode")]
    return [_say(doc, "In bytes it is {byte} ({eb}-byte elements).", byte="/answer/byte_cute",
                 eb="/problem/elem_bytes")]


def _unswizzled(family: str) -> bool:
    """The baseline family (the identity: no swizzle), as its record says."""
    return record(family).baseline


def _xor_bits(layout: dict) -> int | None:
    steps = layout.get("swizzles") or []
    if _unswizzled(layout["family"]):
        return 0
    if not steps or any(st.get("B") is None for st in steps):
        return None
    return sum(st["B"] for st in steps)


def _cheaper(doc: dict) -> list[dict]:
    """Runners-up that cost less (no swizzle, fewer XOR bits, less memory) and leave more wavefronts."""
    ans = doc["answer"]
    out: list[dict] = []
    bits = _xor_bits(ans)
    for j, alt in enumerate(doc.get("alternatives") or []):
        if len(out) == MAX_CHEAPER:
            break
        if alt["excess_wavefronts"] <= ans["excess_wavefronts"]:
            continue
        p, alt_bits = f"/alternatives/{j}", _xor_bits(alt)
        if _unswizzled(alt["family"]):
            reason, refs = "no swizzle", {}
        elif bits is not None and alt_bits is not None and alt_bits < bits and len(alt["swizzles"]) == 1:
            reason, refs = "B = {ab}", {"ab": f"{p}/swizzles/0/B"}
        elif alt["storage_bytes"] < ans["storage_bytes"]:
            reason, refs = "{ast} B", {"ast": f"{p}/storage_bytes"}
        else:
            continue
        out.append(_cheaper_sentence(doc, p, alt, reason, refs))
    if not any(_unswizzled(a["family"]) for a in doc.get("alternatives") or []):
        out += _unswizzled_witness(doc)
    return out


def _cheaper_sentence(doc: dict, p: str, alt: dict, reason: str, refs: dict[str, str]) -> dict:
    """One runner-up's failure: every access it leaves above its lower bound, with its counts."""
    worst = [i for i, c in enumerate(alt["per_access"]) if c["worst_wavefronts"] > c["lower_bound"]] or [0]
    parts = []
    for i in worst:
        a = f"{p}/per_access/{i}"
        parts.append(f"{{spec{i}}} takes {{w{i}}} at worst ({{t{i}}} over the tile) against a lower bound of {{lb{i}}}")
        refs = {**refs, f"spec{i}": f"{a}/spec", f"w{i}": f"{a}/worst_wavefronts", f"t{i}": f"{a}/total_wavefronts",
                f"lb{i}": f"{a}/lower_bound"}
    return _say(doc, "{alt} (" + reason + ") is cheaper but leaves {excess} excess wavefronts: " + "; ".join(parts)
                + ".", alt=f"{p}/name", excess=f"{p}/excess_wavefronts", **refs)


def _unswizzled_witness(doc: dict) -> list[dict]:
    """The identity's failure from the families' proof, when it is not among the runners-up."""
    for k, fam in enumerate(doc["proof"].get("families") or []):
        if _unswizzled(fam["family"]) and fam.get("witness") and not fam["reaches_lower_bound"]:
            w = f"/proof/families/{k}/witness"
            return [_say(doc, "No swizzle is cheaper but leaves {excess} excess wavefronts: {spec} takes {worst} at "
                         "worst.", excess=f"/proof/families/{k}/best_excess_wavefronts", spec=f"{w}/access",
                         worst=f"{w}/worst_wavefronts")]
    return []


def _given_pitch(doc: dict, given: dict) -> dict:
    """The answer changes the given pitch: what the given one needs, and the memory between them."""
    g = "/search/given_pitch"
    best = "the best found is {best}, leaving {excess} excess wavefronts" if given["best"] else "no layout was found"
    refs = {"best": f"{g}/best", "excess": f"{g}/excess_wavefronts"} if given["best"] else {}
    if given["extra_bytes"] >= 0:  # the answer drops the padding given
        return _say(doc, "At the given pitch of {pitch} elements " + best + ", in {storage} B: {extra} B more "
                    "than the answer.", pitch=f"{g}/row_length", storage=f"{g}/storage_bytes",
                    extra=f"{g}/extra_bytes", **refs)
    return _say(doc, "At the given pitch of {pitch} elements " + best + ", in {storage} B; the padded answer "
                "takes {own} B.", pitch=f"{g}/row_length", storage=f"{g}/storage_bytes",
                own="/answer/storage_bytes", **refs)


def _padding(doc: dict) -> list[dict]:
    """What padding would cost instead (or, when the answer pads, what the given pitch needs)."""
    ans = doc["answer"]
    given = (doc.get("search") or {}).get("given_pitch")
    if given is not None:
        return [_given_pitch(doc, given)]
    for j, alt in enumerate(doc.get("alternatives") or []):
        if "padding" in alt:
            p = f"/alternatives/{j}"
            return [_say(doc, "Padding instead: {alt} (rows {pitch} elements apart, {extra} B more than the tile) "
                         "leaves {excess} excess wavefronts in {storage} B; {name} takes {own} B.", alt=f"{p}/name",
                         pitch=f"{p}/padding/row_length", extra=f"{p}/padding/extra_bytes",
                         excess=f"{p}/excess_wavefronts", storage=f"{p}/storage_bytes", name="/answer/name",
                         own="/answer/storage_bytes")]
    if "padding" in ans or "search" not in doc:
        return []
    if ans["excess_wavefronts"] == 0:
        return [_say(doc, "Padding was not needed: {name} reaches every lower bound in the tile's own {storage} B, "
                     "and a padded pitch only adds memory.", name="/answer/name", storage="/answer/storage_bytes")]
    return []
