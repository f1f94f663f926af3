"""`swizzle-solve probe-compare DIR`: what the model predicted against what the profiler measured.

Reads DIR/prediction.json (written by `swizzle-solve probe`) and the measurement run.sh saved beside
it (prediction.json's ``measurement.file``):

- ``ncu.csv``: Nsight Compute's ``--csv`` output, one row per (kernel, metric) (the default page) or
  one row per kernel with a column per metric (``--page raw``); ncu's own ``==PROF==`` lines and any
  line before the header are skipped; thousands separators are dropped.
- ``rocprof.csv``: rocprofv3's counter collection (``*_counter_collection.csv``): Kernel_Name,
  Counter_Name, Counter_Value; the values of one (kernel, counter) are summed.

Kernels are matched by name (``probe_a<N>``, whatever ncu or rocprof print around it). For each
kernel the first group of ``compare`` whose counters were all measured is compared (DESIGN.md
section 10's names come first); the other groups' counters that were measured, and ``also``, are
shown beside it and do not decide. Where an AMD
instruction has two readings of a disputed cell, the kernel agrees when either reading does, and
the output says which. probe.out (the probe's own run, written by run.sh) adds each load kernel's
checksum: a mismatch (the loads did not read the planned bytes) fails the kernel.

Exit 0: every kernel agrees; 1: one differs; 2: bad input (one line on stderr, nothing on stdout).
Both files may be anything (a damaged folder, a hand edit, a hostile pull request): prediction.json
must have the shape ``probe`` writes (types checked, nesting capped, NaN refused), a measured value
must be a finite number (``nan``, ``inf`` or a number past a double is refused: --json stays JSON),
and every text shown is ``printable``.
Nothing here imports z3 or solves: it runs on a GPU machine (numpy, typer and rich, no z3) from the
checkout, ``PYTHONPATH=. python3 -m swizzle_solver probe-compare DIR``.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

from ..access.inputfile import check_depth, printable
from ..model import InputError
from .targets import TARGETS

_KERNEL = re.compile(r"\bprobe_a(\d+)\b")
MAX_BYTES = 64 << 20  # a measurement file of a probe is kilobytes; refuse to read a stray huge one


def load_prediction(folder: Path) -> dict:
    path = folder / "prediction.json"
    if not folder.is_dir():
        raise InputError(f"probe-compare {folder}: not a folder: give the folder `swizzle-solve probe -o` wrote")
    if not path.is_file():
        raise InputError(f"probe-compare {folder}: no prediction.json: give the folder `swizzle-solve probe -o` wrote")
    text = _read(path)
    check_depth(text, str(path))  # a 2,000-deep document would exhaust json's recursion
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as err:
        raise InputError(f"{path}: not JSON ({str(err)[:200]}): write the probe again") from None
    if not isinstance(doc, dict) or doc.get("schema_version") != 1 or not isinstance(doc.get("kernels"), list):
        raise InputError(f"{path}: not a probe prediction (schema_version 1 with kernels): write the probe again")
    wrong = _wrong_top(doc) or next((w for k in doc["kernels"] if (w := _wrong_kernel(k))), None)
    if wrong:
        raise InputError(f"{path}: {wrong}: not as `swizzle-solve probe` writes it; write the probe again")
    return doc


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _is_count(v) -> bool:
    """A predicted counter value: a finite number (JSON's true and false are not)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _wrong_top(doc: dict) -> str | None:
    """What is wrong with prediction.json's own fields (those probe-compare reads), or None."""
    measurement, layout = doc.get("measurement", {}), doc.get("layout", {})
    if not isinstance(measurement, dict) or not isinstance(measurement.get("file", "ncu.csv"), str):
        return "measurement is not {\"file\": NAME}"
    if not isinstance(layout, dict) or not isinstance(layout.get("name", ""), str):
        return "layout is not {\"name\": TEXT}"
    if not isinstance(doc.get("target", ""), str):
        return "target is not text"
    return None


def _wrong_kernel(k) -> str | None:
    """What is wrong with one entry of prediction.json's kernels, or None."""
    if not isinstance(k, dict) or not isinstance(k.get("kernel"), str) or not re.fullmatch(r"probe_a\d+", k["kernel"]):
        return "a kernel entry has no kernel name probe_a<N>"
    name = k["kernel"]
    if not all(isinstance(k.get(f, ""), str) for f in ("access", "reading", "op")):
        return f"{name}: access, reading or op is not text"
    if not isinstance(k.get("notes", []), list) or not all(isinstance(n, str) for n in k.get("notes", [])):
        return f"{name}: notes is not a list of text"
    return _wrong_counters(name, k.get("compare"), k.get("also", {}))


def _wrong_counters(name: str, groups, also) -> str | None:
    """What is wrong with a kernel's predicted counters (compare: groups of them; also), or None."""
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups) or not isinstance(also, dict):
        return f"{name}: compare is not a list of {{counter: value}} (with also one such object)"
    if not all(_is_count(v) for g in groups for v in g.values()) or \
            not all(v is None or _is_count(v) for v in also.values()):
        return f"{name}: a predicted counter value is not a finite number"
    return None


def _read(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_BYTES:
            raise InputError(f"{path}: larger than {MAX_BYTES >> 20} MiB: not a probe's file")
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror or err}") from None


def number(text: str) -> float | None:
    """A counter value as the profilers print it ("1,024", "64", "0.00", "n/a": None). nan, inf
    and numbers past a double are returned as the float they read as (not finite): a counter
    compared or shown that is not finite is refused (``_finite``)."""
    t = text.strip().strip('"').replace(",", "").replace("\u202f", "").replace(" ", "")
    try:
        value = float(t)
    except ValueError:
        return None
    return value


def kernel_of(name: str) -> str | None:
    m = _KERNEL.search(name)
    return f"probe_a{m[1]}" if m else None


def _csv_rows(text: str) -> list[list[str]]:
    """The rows of a CSV text; a cell above the csv module's limit (128 KiB) or another defect
    that stops the reader is bad input."""
    try:
        return list(csv.reader(io.StringIO(text)))
    except csv.Error as err:
        raise InputError(f"not the CSV a profiler writes ({err}); run `bash run.sh` again") from None


def read_ncu(text: str) -> dict[str, dict[str, float]]:
    """kernel -> metric -> value from ncu's --csv output (either layout)."""
    rows = [r for r in _csv_rows(text) if r and not r[0].startswith("==")]
    header_at = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if header_at is None:
        raise InputError("no \"Kernel Name\" header: not ncu --csv output (run.sh writes it)")
    header = rows[header_at]
    body = [r for r in rows[header_at + 1:] if len(r) == len(header)]
    if "Metric Name" in header and "Metric Value" in header:
        return _ncu_by_metric_rows(header, body)
    return _ncu_by_columns(header, body)


def _ncu_by_metric_rows(header: list[str], body: list[list[str]]) -> dict[str, dict[str, float]]:
    """ncu's default --csv: a row per kernel and metric (the first value of each kept)."""
    name, metric, value = header.index("Kernel Name"), header.index("Metric Name"), header.index("Metric Value")
    out: dict[str, dict[str, float]] = {}
    for r in body:
        kernel, v = kernel_of(r[name]), number(r[value])
        if kernel and v is not None:
            out.setdefault(kernel, {}).setdefault(r[metric].strip(), v)
    return out


def _ncu_by_columns(header: list[str], body: list[list[str]]) -> dict[str, dict[str, float]]:
    """ncu's --page raw: a column per metric (the line after the header, the units, has no kernel)."""
    name = header.index("Kernel Name")
    out: dict[str, dict[str, float]] = {}
    for r in body:
        kernel = kernel_of(r[name])
        if not kernel:
            continue
        seen = out.setdefault(kernel, {})
        for col, cell in zip(header, r):
            v = number(cell)
            if v is not None and col != "Kernel Name":
                seen.setdefault(col.strip(), v)
    return out


def read_rocprof(text: str) -> dict[str, dict[str, float]]:
    """kernel -> counter -> summed value from rocprofv3's counter collection CSV."""
    rows = _csv_rows(text)
    header = [h.strip().lstrip("\ufeff") for h in rows[0]] if rows else []
    columns = ("Kernel_Name", "Counter_Name", "Counter_Value")
    if not set(columns) <= set(header):
        raise InputError("no Kernel_Name, Counter_Name and Counter_Value columns: not rocprofv3's counter "
                         "collection CSV (run.sh writes it)")
    at = [header.index(c) for c in columns]
    out: dict[str, dict[str, float]] = {}
    for r in rows[1:]:
        if len(r) <= max(at):  # a row cut short (a profiler that stopped mid-line): not a measurement
            continue
        kernel, counter, v = kernel_of(r[at[0]]), r[at[1]].strip(), number(r[at[2]])
        if kernel and v is not None:
            counters = out.setdefault(kernel, {})
            counters[counter] = counters.get(counter, 0.0) + v
    return out


def read_checksums(folder: Path) -> dict[str, bool]:
    """kernel -> its loads' checksum agreed (probe.out, the probe's own output); empty if absent."""
    path = folder / "probe.out"
    if not path.is_file():
        return {}
    out = {}
    for line in _read(path).splitlines():
        kernel = kernel_of(line.split(" ", 1)[0])
        if kernel and ("checksum" in line):
            out[kernel] = "MISMATCH" not in line
    return out


def read_device(folder: Path) -> dict[str, str]:
    path = folder / "device.txt"
    if not path.is_file():
        return {}
    pairs = (line.split(":", 1) for line in _read(path).splitlines() if ":" in line)
    return {k.strip(): v.strip() for k, v in pairs if v.strip()}


def compare(folder: Path) -> dict:
    """The comparison as data: one entry per kernel (its readings folded), and whether all agree."""
    doc = load_prediction(folder)
    path, measured = _measured(folder, doc)
    sums = read_checksums(folder)
    kernels: dict[str, dict] = {}
    for entry in doc["kernels"]:
        name = entry["kernel"]
        k = kernels.setdefault(name, {"kernel": name, "access": entry.get("access", ""), "op": entry.get("op", ""),
                                      "readings": [], "checksum": sums.get(name), "notes": entry.get("notes", [])})
        k["readings"].append(_reading(entry, measured.get(name), path))
    for k in kernels.values():
        k["agree"] = any(r["agree"] for r in k["readings"]) and k["checksum"] is not False
    return {"folder": str(folder), "target": doc.get("target", ""), "layout": doc.get("layout", {}).get("name", ""),
            "device": read_device(folder), "agree": all(k["agree"] for k in kernels.values()),
            "kernels": list(kernels.values())}


def _measured(folder: Path, doc: dict) -> tuple[Path, dict[str, dict[str, float]]]:
    """The profiler's file that prediction.json names, and its counters by kernel."""
    measurement = doc.get("measurement", {}).get("file", "ncu.csv")
    if not isinstance(measurement, str) or "/" in measurement or "\0" in measurement or measurement.startswith("."):
        raise InputError(f"{folder / 'prediction.json'}: measurement.file {measurement!r} is not a file name")
    path = folder / measurement
    if not path.is_file():
        raise InputError(f"probe-compare {folder}: no {measurement}: run `bash run.sh` in the folder first "
                         f"(on the GPU), which writes it")
    # the target's parser of its profiler's file (probe/targets.py; an unknown name: ncu's, as before)
    reader = {t.measurement: globals()[t.reader] for t in TARGETS.values()}.get(measurement, read_ncu)
    text = _read(path)
    try:
        return path, reader(text)
    except InputError as err:
        raise InputError(f"{path}: {err}") from None


def _group(entry: dict, got: dict[str, float] | None, path: Path) -> tuple[dict[str, float], dict]:
    """The kernel's counters, and the first of its groups of predicted counters they all hold."""
    name = entry["kernel"]
    if got is None:
        raise InputError(f"{path} has no counters of kernel {name} ({entry.get('access')}): the probe or the "
                         f"profiler stopped early; run `bash run.sh` again")
    group = next((g for g in entry["compare"] if g and all(m in got for m in g)), None)
    if group is None:
        wanted = ", ".join(m for g in entry["compare"] for m in g)
        raise InputError(f"{path} has none of the counters probe-compare needs for {name}: {wanted}")
    return got, group


def _reading(entry: dict, got: dict[str, float] | None, path: Path) -> dict:
    """One reading of a kernel: its first group of counters the profiler measured, each predicted
    against measured, and the other counters it also has."""
    got, group = _group(entry, got, path)
    rows = [(m, v, got[m]) for m, v in group.items()]
    others = [(m, v) for g in entry["compare"] if g is not group for m, v in g.items() if m not in group]
    also = [(m, v, got[m]) for m, v in [*others, *entry.get("also", {}).items()] if m in got]
    for m, _, g in rows + also:
        if not math.isfinite(g):
            raise InputError(f"{path}: {entry['kernel']}'s counter {printable(m)} reads {g}, not a count: the profiler "
                             f"or the file is broken; run `bash run.sh` again")
    return {"reading": entry.get("reading", ""), "agree": all(p == g for _, p, g in rows), "compared": rows,
            "also": also}


def _value(x: float | int) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def text(result: dict) -> str:
    """The comparison as the terminal shows it: a plain table (fits any width; no colour)."""
    device = result["device"]
    lines = [_shown(f"probe {result['folder']} ({result['target']}, layout {result['layout']})")]
    if device:
        lines.append(_shown("measured on: " + ", ".join(f"{k} {v}" for k, v in device.items())))
    table: list[tuple[str, ...]] = [("kernel", "access", "counter", "predicted", "measured", "")]
    for k in result["kernels"]:
        table += _kernel_rows(k)
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    for row in table:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2].ljust(widths[2]),
                 row[3].rjust(widths[3]), row[4].rjust(widths[4]), row[5]]
        lines.append(_shown("  ".join(cells).rstrip()))
    return "\n".join(lines + [_shown(v) for v in _verdicts(result["kernels"])]) + "\n"


def _shown(line: str) -> str:
    """A line of the table: the folder's files may hold anything (docs/cli.md, "Text from the
    input"): one printable line, no CI command."""
    return printable(line)


def _kernel_rows(k: dict) -> list[tuple[str, ...]]:
    """One kernel's rows of the table: each compared counter of each reading, then the others."""
    rows: list[tuple[str, ...]] = []
    for r in k["readings"]:
        label = f" {r['reading']}" if r["reading"] else ""
        for m, p, g in r["compared"]:
            first = not rows
            rows.append((k["kernel"] if first else "", (k["access"] + label) if first or label else "", m,
                         _value(p), _value(g), "ok" if p == g else "DIFFERS"))
        for m, p, g in r["also"]:
            mark = "" if p is None else "ok" if p == g else "differs"
            rows.append(("", "", f"(also) {m}", "-" if p is None else _value(p), _value(g), mark))
    if k["checksum"] is False:
        rows.append(("", "", "checksum of the loads (probe.out)", "", "", "MISMATCH"))
    return rows


def _verdicts(kernels: list[dict]) -> list[str]:
    """The lines under the table: which reading a measurement agrees with, and the verdict."""
    lines = []
    for k in kernels:
        if len(k["readings"]) > 1 and k["agree"]:
            which = [r["reading"] or "the tool's reading" for r in k["readings"] if r["agree"]]
            lines.append(f"{k['kernel']} ({k['access']}): the measurement agrees with {' and '.join(which)}")
    differ = [k for k in kernels if not k["agree"]]
    if differ:
        names = ", ".join(f"{k['kernel']} ({k['access']})" for k in differ)
        lines.append(f"{len(differ)} of {len(kernels)} access(es) differ from the model: {names}")
    else:
        lines.append(f"all {len(kernels)} access(es) agree with the model")
    return lines


def as_json(result: dict) -> dict:
    """The comparison as JSON: the compared counters as {metric: [predicted, measured]}."""
    out = dict(result)
    out["kernels"] = [{**k, "readings": [{**r, "compared": {m: [p, g] for m, p, g in r["compared"]},
                                          "also": {m: [p, g] for m, p, g in r["also"]}} for r in k["readings"]]}
                      for k in result["kernels"]]
    return out
