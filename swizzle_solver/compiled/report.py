"""The kernel report (DESIGN.md section 15, "Report"): one row per static shared-memory instruction,
per kernel the totals under Nsight Compute's metric names, what is not counted, and the status;
as the JSON document (docs/schema/kernel.schema.json), a rich table, or one line (-q)."""
from __future__ import annotations

import re
from typing import Any

from ..hardware import Hardware, target, target_names
from ..model import InputError
from .count import Counted, Instances, count, instances
from .emulator import Allocation, Emulator
from .ptx import Function, Module, parse

MAX_THREADS = 1024


class Row:
    """One static instruction in the report."""

    def __init__(self, counted: Counted, found: Instances, emu: Emulator) -> None:
        ins = emu.f.code[counted.pc]
        self.pc, self.counted, self.found = counted.pc, counted, found
        self.ptx_line, self.ptx = ins.line, ins.text
        self.file = emu.module.files.get(ins.source[0], "") if ins.source else ""
        self.line = ins.source[1] if ins.source else 0
        self.allocation = allocation_of(emu.allocations, counted.lo, counted.hi) if counted.hi > counted.lo else None

    def to_json(self) -> dict[str, Any]:
        c = self.counted
        alloc = None
        if self.allocation is not None:
            a = self.allocation
            alloc = {"name": a.name, "dynamic": a.dynamic, "bytes": [c.lo - a.base, c.hi - a.base]}
        status = ("data-dependent" if c.data_dependent == c.instances else "conflicts" if c.excess > 0
                  else "conflict-free")
        out = {"file": self.file, "line": self.line, "ptx_line": self.ptx_line, "ptx": self.ptx, "op": c.kind.op,
               "lane_bytes": c.kind.width, "allocation": alloc, "instances": c.instances,
               "data_dependent": c.data_dependent, "wavefronts": c.wavefronts, "ideal_wavefronts": c.ideal,
               "excess": c.excess, "counters": c.counters(), "status": status}
        if c.data_dependent:
            out["why_data_dependent"] = self.found.why
        return out


def allocation_of(allocations: list[Allocation], lo: int, hi: int) -> Allocation | None:
    for a in allocations:
        if a.base <= lo < a.base + a.size:
            return a
    return None


class KernelResult:
    def __init__(self, name: str, block: tuple[int, int, int], cta: tuple[int, int, int], rows: list[Row],
                 not_counted: list[dict[str, Any]], notes: list[str], emu: Emulator | None) -> None:
        self.name, self.block, self.cta, self.rows = name, block, cta, rows
        self.not_counted, self.notes, self.emu = not_counted, notes, emu
        self.fix: dict[str, Any] | None = None
        self.solved: list[tuple[str, Any, Any]] = []  # --fix: (allocation, Problem, api.Result) each (--html)

    @property
    def excess(self) -> int:
        return sum(r.counted.excess for r in self.rows)

    def counters(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for r in self.rows:
            for k, v in r.counted.counters().items():
                total[k] = total.get(k, 0) + v
        return dict(sorted(total.items()))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "demangled": demangle(self.name), "block": list(self.block), "cta": list(self.cta),
                "instructions": [r.to_json() for r in self.rows], "counters": self.counters(),
                "excess": self.excess, "not_counted": self.not_counted, "notes": self.notes, "fix": self.fix}


class KernelReport:
    """Every kernel of one file (the Python API's answer, compiled/__init__.py)."""

    def __init__(self, file: str, arch: str, kernels: list[KernelResult], extra: list[dict] | None = None) -> None:
        self.file, self.arch, self.kernels = file, arch, kernels
        self.extra = extra  # kernel entries read another way (a .ttgir file), already as JSON

    @property
    def status(self) -> str:
        docs = self._kernel_docs()
        above = any(r.get("excess", 0) > 0 for k in docs for r in k.get("instructions", []))
        return "conflicts" if above else "conflict-free"

    @property
    def exit_code(self) -> int:
        return 1 if self.status == "conflicts" else 0

    def _kernel_docs(self) -> list[dict[str, Any]]:
        return [k.to_json() for k in self.kernels] + list(self.extra or [])

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": 1, "file": self.file, "arch": self.arch, "kernels": self._kernel_docs(),
                "status": self.status}

    def quiet(self) -> str:
        docs = self._kernel_docs()
        rows = [r for k in docs for r in k.get("instructions", [])]
        above = sum(1 for r in rows if r.get("excess", 0) > 0)
        excess = sum(r.get("excess", 0) for r in rows)
        dependent = sum(1 for r in rows if r.get("data_dependent"))
        tail = (f" ({dependent} instruction{'s' if dependent != 1 else ''} with data-dependent addresses not counted)"
                if dependent else "")
        if not above:
            return "conflict-free" + tail
        return f"conflicts: {above} instruction{'s' if above != 1 else ''} above ideal, {excess} excess wavefronts{tail}"

    def text(self) -> str:
        from .render import render

        return render(self)


# --- names ----------------------------------------------------------------------------------------


def demangle(name: str) -> str:
    """The plain name of an Itanium-mangled C++ function (``_Z9transposePfi`` -> ``transpose``,
    ``_ZN2ns1fEv`` -> ``ns::f``); other names unchanged. Only the name: enough to select a kernel."""
    if not name.startswith("_Z"):
        return name
    s = name[2:]
    nested = s.startswith("N")
    s = s[1:] if nested else s
    parts = []
    while True:
        m = re.match(r"(\d+)", s)
        if not m:
            break
        n = int(m[1])
        parts.append(s[len(m[1]):len(m[1]) + n])
        s = s[len(m[1]) + n:]
        if not nested:
            break
    return "::".join(parts) if parts else name


def _selected(module: Module, kernels: str | list[str] | None) -> list[Function]:
    kernels = [kernels] if isinstance(kernels, str) else list(kernels) if kernels else None
    entries = [f for f in module.functions.values() if f.entry]
    if not entries:
        raise InputError("the PTX has no .entry (no kernel): give the PTX of a kernel (nvcc -ptx)")
    if not kernels:
        return entries
    out = []
    for want in kernels:
        found = [f for f in entries if want in (f.name, demangle(f.name)) or demangle(f.name).split("::")[-1] == want]
        if not found:
            raise InputError(f"--kernel {want!r}: no such kernel; the file has {', '.join(f.name for f in entries)}")
        out += [f for f in found if f not in out]
    return out


def _known_params(params: dict, functions: list[Function]) -> list[Function]:
    """Every --param names a parameter of a kernel run, as the emulator reads them (its PTX name,
    param_N or N, each optionally +OFFSET): a name from the source (K) matches none, and would be
    ignored while the count used the parameter as unknown."""
    for key in params:
        base = str(key).split("+")[0].strip()
        if not any(base in (name, f"param_{i}", str(i)) for f in functions for i, (name, _) in enumerate(f.params)):
            counts = sorted({len(f.params) for f in functions})
            raise InputError(f"--param {key}: no parameter of the kernel is named {base!r}; the PTX names them by "
                             f"position (the source's names are gone): --param N=VALUE, N from 0 to "
                             f"{max(counts) - 1 if counts[-1] else 0}, or param_N")
    return functions


def _block(f: Function, block) -> tuple[int, int, int]:
    given = tuple(block) if block is not None else f.reqntid or f.maxntid
    if not given:
        raise InputError(f"kernel {f.name} has no .reqntid or .maxntid: give the block, e.g. --block 256 or "
                         f"--block 32,8")
    b = tuple(int(x) for x in given) + (1,) * (3 - len(given))
    if len(b) != 3 or min(b) < 1 or b[0] * b[1] * b[2] > MAX_THREADS:
        raise InputError(f"block {','.join(map(str, given))}: give 1 to 3 positive sizes of at most {MAX_THREADS} "
                         f"threads in all, e.g. --block 32,8")
    return b[0], b[1], b[2]


def hardware_of(arch: str) -> Hardware:
    hw = target(arch)
    if hw is None:
        raise InputError(f"--arch {arch!r} is not a target: use one of {target_names()}")
    if hw.language != "CUDA":  # the targets whose kernels are CUDA run PTX
        raise InputError(f"--arch {arch}: PTX runs on NVIDIA GPUs; give an NVIDIA target (nvidia, sm80, sm90, ...)")
    return hw


# --- analysis -------------------------------------------------------------------------------------


def analyse(text: str, name: str, *, kernels=None, block=None, cta=(0, 0, 0), params=None, iterations=None,
            arch: str = "nvidia", fix: bool = False, emit: str | None = None, max_steps: int | None = None
            ) -> KernelReport:
    from .isa import DECODERS, HANDLERS

    hw = hardware_of(arch)
    if emit and not fix:
        raise InputError("--emit gives the code of --fix's layout: add --fix")
    if iterations is not None and iterations < 1:
        raise InputError(f"--iterations {iterations}: give a positive number of times to follow each loop")
    c = ((cta,) if isinstance(cta, int) else tuple(int(x) for x in cta)) + (0, 0, 0)
    cta3 = (c[0], c[1], c[2])
    module = parse(text)
    results = []
    block = (block,) if isinstance(block, int) else block
    for f in _known_params(params or {}, _selected(module, kernels)):
        b = _block(f, block)
        emu = Emulator(module, f, b, cta3, dict(params or {}), iterations, **({"max_steps": max_steps} if max_steps else {}))
        emu.run(HANDLERS, DECODERS)
        found = instances(emu)
        _refuse_missing(found, emu, hw)
        counted = count(found, hw)
        rows = [Row(counted[pc], found[pc], emu) for pc in counted]
        result = KernelResult(f.name, b, cta3, rows, _not_counted(emu), _notes(emu) + _outside(rows), emu)
        if fix:
            from .fix import fix_kernel

            result.fix = fix_kernel(result, found, hw, emit)
        results.append(result)
    return KernelReport(name, hw.name, results)


def _refuse_missing(found: dict[int, Instances], emu: Emulator, hw: Hardware) -> None:
    """An instruction the target does not have (stmatrix before sm_90, ldmatrix on none) is bad input
    naming the targets that have it (DESIGN.md section 9)."""
    for pc, got in found.items():
        family = {"ldsm": "ldmatrix", "stsm": "stmatrix"}.get(got.kind.op)
        why = hw.refusal(family) if family else None
        if why is not None:
            raise InputError(f"PTX line {emu.f.code[pc].line}: {emu.f.code[pc].text!r}: {why}")


def _where(emu: Emulator, pc: int) -> dict[str, Any]:
    ins = emu.f.code[pc]
    return {"file": emu.module.files.get(ins.source[0], "") if ins.source else "",
            "line": ins.source[1] if ins.source else 0, "ptx_line": ins.line, "ptx": ins.text}


def _not_counted(emu: Emulator) -> list[dict[str, Any]]:
    return [{**_where(emu, pc), "reason": why} for pc, why in sorted(emu.not_counted.items())]


def _notes(emu: Emulator) -> list[str]:
    notes = []
    for pc, times in sorted(emu.capped.items()):
        w = _where(emu, pc)
        src = f" ({w['file']}:{w['line']})" if w["file"] else ""
        notes.append(f"loop at PTX line {w['ptx_line']}{src} cut at --iterations {emu.iterations} ({times} time"
                     f"{'s' if times != 1 else ''})")
    for pc, why in sorted(emu.assumed.items()):
        notes.append(f"branch at PTX line {emu.f.code[pc].line} depends on {why}: followed as a loop of "
                     f"--iterations {emu.iterations} (the path into the loop taken)")
    for pc, lanes in sorted(emu.serialised.items()):
        notes.append(f"atomic at PTX line {emu.f.code[pc].line}: up to {lanes} lanes of a warp update one address; "
                     f"the hardware serialises them, which is not modelled (counted: its bank conflicts alone)")
    return notes


def _outside(rows: list[Row]) -> list[str]:
    """Instructions whose addresses run past their allocation (a wrong --block, or an index bug)."""
    out = []
    for r in rows:
        a, c = r.allocation, r.counted
        if a is not None and not a.dynamic and c.hi > a.base + a.size:
            out.append(f"PTX line {r.ptx_line} touches bytes up to {c.hi - a.base} of {a.name} ({a.size} bytes): "
                       f"past its end (is --block right?)")
        elif a is None and c.hi > c.lo:
            out.append(f"PTX line {r.ptx_line} touches shared bytes {c.lo}..{c.hi} outside every allocation")
    return out


def from_ttgir(text: str, name: str, *, arch: str = "nvidia") -> KernelReport:
    from .ttgir import kernel_entries  # each tt.func one kernel entry of the JSON document

    return KernelReport(name, arch, [], kernel_entries(text, arch=arch))
