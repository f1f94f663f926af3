"""The command line: a thin typer layer over the API (api.py), which solves and checks.

Exit codes (DESIGN.md section 4): 0 conflict-free (or --check passed, or every batch case met its
expectation); 1 no conflict-free layout / --check failed / a batch expectation failed; 2 bad input,
with one line on stderr and nothing on stdout.
"""

import functools
import gc
import sys
from typing import Any, Callable, List, Optional

import typer
from typer.core import TyperGroup, TyperOption

from . import __version__
from .access import defaulted_elem_warning, elem_bits_of, elem_bytes_of, make_problem, scalar_bytes_of
from .layout import Layout
from .model import InputError, Problem
from .value import Value, replace

# --help: the usage line says that a plain solve takes no command (only `batch` is one), and the
# epilog gives the examples and the exit codes; "\b" keeps click from re-flowing a paragraph.
EPILOG = """\b
Examples:
  swizzle-solve --rows 64 --cols 64 --dtype f16 --access ldmatrix.x4
  swizzle-solve --rows 8 --cols 24 --access 4x2 --access row --json
  swizzle-solve --rows 64 --cols 64 --dtype f16 --access 8x8 \\
                --check 'Swizzle<3,3,3>'
  swizzle-solve --rows 64 --cols 64 --dtype f16 --access 8x8 -q --emit cuda
  swizzle-solve batch examples.toml --json

\b
Exit codes:
  0  conflict-free; --check passed; batch: every case met its expectation
  1  no conflict-free layout; --check failed; --timeout reached first;
     batch: a case failed
  2  bad input: one line on stderr, nothing on stdout

\b
Shell completion: swizzle-solve --install-completion (bash, zsh, fish),
or --show-completion to print the script (docs/cli.md).
Output: docs/output.md; JSON: docs/json.md; CI: docs/ci.md."""


class _App(TyperGroup):
    """The app's command group. Help text that comes from a registry is filled in when help is
    printed, never at import (start-up: a plain solve must not import emit/)."""

    def format_help(self, ctx, formatter) -> None:
        for param in self.params:  # (click's Parameter has no help: only its options do)
            if not isinstance(param, TyperOption) or not param.help:
                continue
            # the help as written, kept: the command is made once per process (_command), and a
            # language registered since the last --help must be named in the next one
            template = self._templates.setdefault(param.name, param.help)
            if "{targets}" in template:
                from .emit import ALIASES, TARGETS

                names = [t + "".join(f" (or {a})" for a, to in ALIASES.items() if to == t) for t in TARGETS]
                param.help = template = template.replace("{targets}", ", ".join(names))
            if "{notations}" in template:
                from .notation import prefixes

                param.help = template.replace("{notations}", ", ".join(f"{p}:" for p in prefixes()))
        super().format_help(ctx, formatter)

    @property
    def _templates(self) -> dict:
        if "_help_templates" not in self.__dict__:
            self.__dict__["_help_templates"] = {}
        return self.__dict__["_help_templates"]


app = typer.Typer(cls=_App, add_completion=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  context_settings={"help_option_names": ["-h", "--help"]}, subcommand_metavar="[batch FILE]",
                  epilog=EPILOG,
                  help="The minimal shared-memory swizzle for a tile and its access patterns, with proof.")

EXIT_OK, EXIT_CONFLICTS, EXIT_INPUT = 0, 1, 2
OUT_OF_MEMORY = ("out of memory: give a smaller tile, fewer access patterns or fewer batch cases, or let the "
                 "process use more memory")

# Usage errors come from the click that typer runs on: the click package for older typer, a copy
# vendored as typer._click in recent releases (typer 0.28 no longer depends on click). Take the
# classes from wherever typer's own BadParameter lives, so both work and click (not one of our
# dependencies) is never imported by name.
_click_errors = sys.modules[typer.BadParameter.__module__]


class Outputs(Value):
    """What to print besides the answer: code snippets, the terminal picture, the SVG file."""

    targets: tuple = ()
    show: bool = False
    show_access: Optional[str] = None
    svg: Optional[str] = None
    html: Optional[str] = None  # --html FILE: the interactive page (html.py)
    explain: bool = False  # --explain: the reason in sentences (explain.py), in the document, report and page


def outputs_of(problem: Problem, emit: list[str], show: bool, show_access: Optional[str], svg: Optional[str],
               json_out: bool, quiet: bool, html: Optional[str] = None) -> Outputs:
    """Validate every output option before any work, so bad input prints nothing and writes nothing."""
    targets: tuple = ()
    if emit:  # emit.py is only imported when code is asked for (start-up)
        from .emit import parse_targets

        targets = tuple(parse_targets(emit))
    show = show or (show_access is not None and svg is None and html is None)  # --show-access alone: "show this one"
    if show and (json_out or quiet):
        raise InputError("--show draws in the terminal and cannot go with --json or --quiet: use --svg FILE")
    if (show_access is not None or svg is not None) and problem.patterns:
        from .bankmap import choose_access

        choose_access(problem, show_access)
    if show_access is not None and not problem.patterns:
        raise InputError(f"--show-access {show_access!r}: no access was named; give one with --access, or draw the "
                         f"layout alone without --show-access")
    for option, path in (("--svg", svg), ("--html", html)):
        if path is not None:
            from .svg import check_writable  # (only then: svg.py's imports cost a plain solve's start-up)

            check_writable(path, option)
    return Outputs(targets, show, show_access, svg, html)


def _output(make_doc: Callable[[bool], dict], json_out: bool, quiet: bool, answer_name: str, problem: Problem,
            layout: Layout, out: Outputs, show_phases: bool, others: Callable[[], list] = list, role: str = "answer"
            ) -> None:
    """Print (and write) what was asked; the JSON document is built only if something reads it
    (--quiet prints the answer line and --emit's code, so only --svg makes it need one), and whole
    only when printed as JSON (``make_doc(terminal)``: report.solution_json). ``others``: the other
    layouts --html offers (a solve's alternatives, a failed check's minimal), ``role`` the layout's."""
    if quiet and out.svg is None and out.html is None:
        _write(quiet_text(answer_name, problem, layout, out.targets))
        return
    doc = make_doc(not json_out)
    if out.explain:
        from .explain import explain

        doc["explain"] = explain(doc)
    if show_phases:
        from .report import placement_phases

        for entry, pattern in zip(doc["problem"]["accesses"], problem.patterns):
            entry["phases"] = placement_phases(pattern)
    if out.targets:
        from .api import with_emit

        with_emit(doc, problem, layout, out.targets)
    if out.svg is not None:
        from .api import figure
        from .svg import write

        write(out.svg, figure(problem, layout, doc["answer"]["per_access"], out.show_access))
    if out.html is not None:
        from .html import document_view, write_page

        page_view = document_view(problem, layout, doc, others(), role, explain=doc.get("explain"))
        write_page(out.html, [page_view], page_view["title"])
    if json_out:
        import json

        _write(json.dumps(doc, indent=2) + "\n")
    elif quiet:
        _write(quiet_text(answer_name, problem, layout, out.targets))
    else:
        from .render import Console, print_solution

        console = Console()
        pictures = []
        if out.show:
            from .api import bank_maps
            from .picture import picture

            before, after = bank_maps(problem, layout, out.show_access)
            pictures.append(picture(before, after, problem.hardware.banks, console.width))
        from .alarm import disarm_deadline

        disarm_deadline()
        print_solution(doc, console, pictures)


def quiet_text(answer_name: str, problem: Problem, layout, targets: tuple) -> str:
    """--quiet: the answer's line, then each --emit target's code as it pastes (a blank line between)."""
    if not targets:
        return answer_name + "\n"
    from .emit import emit_all

    codes = [s.code.rstrip("\n") + "\n" for s in emit_all(targets, problem, layout).values()]
    return answer_name + "\n\n" + "\n".join(codes)


def run_solve(problem: Problem, *, json_out: bool = False, quiet: bool = False, out: Outputs = Outputs(),
              show_phases: bool = False, timeout: float | None = None, exhaustive: bool = False,
              keep_pitch: bool = False, for_targets=()) -> int:
    from .alarm import RunTimeout
    from .api import solve
    from .budget import Budget
    from .progress import LazyProgress

    # the output shows the candidates table (a plain --quiet does not)
    table = not quiet or out.svg is not None or out.html is not None
    budget, result = Budget(timeout), None
    try:
        with LazyProgress(enabled=_stderr_is_terminal()) as progress:  # progress goes to a terminal only
            budget.progress = progress.update
            result = solve(problem, budget=budget, table=table, exhaustive=exhaustive, keep_pitch=keep_pitch,
                           for_targets=for_targets)
        _output(lambda terminal: result.json(terminal=terminal), json_out, quiet, _answer_line(result), problem,
                result.layout, out, show_phases, lambda: [c.layout for c in result.solution.alternatives])
    except RunTimeout:  # --timeout's alarm, before anything was printed: the best layout known, short
        from .overtime import print_doc, short_doc

        assert timeout is not None  # (the alarm is armed only with --timeout)
        print_doc(short_doc(problem, budget, None if result is None else result.solution, timeout), json_out, quiet,
                  _write)
        return EXIT_CONFLICTS
    return EXIT_OK if result.status == "conflict-free" else EXIT_CONFLICTS


def _answer_line(result) -> str:
    """The -q line of a solve: the answer's name; past --timeout, also that the time limit was reached."""
    if result.status != "timeout":
        return result.name
    from .overtime import timeout_line
    from .report import reported_excess

    return timeout_line(result.name, reported_excess(result.problem, result.solution.answer), False)


def run_check(problem: Problem, layout: Layout, *, json_out: bool = False, quiet: bool = False,
              out: Outputs = Outputs(), show_phases: bool = False, timeout: float | None = None) -> int:
    from .alarm import RunTimeout
    from .api import check
    from .progress import LazyProgress

    checked = None
    try:
        with LazyProgress(enabled=_stderr_is_terminal()):
            checked = check(layout, problem)
            line = f"{layout.name} passed"
            if not checked.passed:  # name the layout that passes (a solve of the same problem)
                from .outcomes import failed_check_why

                line = failed_check_why(layout.name, checked.invalid, checked.minimal_name, checked.better_name)
                line += f" (not proven: {checked.minimal_unproven})" if checked.minimal_unproven else ""
                line += f"; {checked.hint}" if checked.hint else ""
            line += f"; {checked.stages_summary}" if checked.stages else ""
            layout = checked.layout  # (a staged layout: the stage reported is the one drawn and emitted)
        if checked.invalid is not None:  # no code for a layout no kernel can use (the line says why)
            out = replace(out, targets=())
        minimal = checked.minimal if not checked.passed else None
        _output(lambda terminal: checked.json(terminal=terminal), json_out, quiet, line, problem, layout, out,
                show_phases, lambda: [] if minimal is None else [minimal.layout], "checked")
    except RunTimeout:  # --timeout's alarm, before anything was printed: the check's verdict, short
        from .overtime import print_doc, short_check_doc

        assert timeout is not None  # (the alarm is armed only with --timeout)
        measured = None if checked is None else (checked.measured, checked.invalid)
        print_doc(short_check_doc(problem, layout, measured, timeout), json_out, quiet, _write)
        return EXIT_CONFLICTS
    return EXIT_OK if checked.passed else EXIT_CONFLICTS


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"swizzle-solve {__version__}\n")
        raise typer.Exit(EXIT_OK)


def _nothing_to_solve(ctx: typer.Context, rows: int | None, cols: int | None, any_access: bool,
                      flag_access: bool) -> bool:
    """Whether the plain command has nothing to solve: a subcommand runs (batch: then the tile
    options, read before it, are refused), or nothing at all was given (then the help is printed).
    A solve without both --rows and --cols is refused."""
    if ctx.invoked_subcommand is not None:
        if rows is not None or cols is not None or flag_access:
            raise InputError("tile options go after the subcommand's own arguments only for solving: "
                             "run 'swizzle-solve batch FILE' alone")
        return True
    if rows is None and cols is None and not any_access:
        sys.stdout.write(ctx.get_help() + "\n")
        return True
    if rows is None or cols is None:
        raise InputError("missing --rows or --cols: e.g. swizzle-solve --rows 8 --cols 24 --access 4x2")
    return False


def _check_output_options(json_out: bool, quiet: bool, timeout: float | None) -> None:
    """Refuse output options that contradict each other, and a --timeout that is no time."""
    if json_out and quiet:
        raise InputError("--json and --quiet both given: choose one output form")
    if timeout is not None and not 0 < timeout < float("inf"):
        raise InputError(f"--timeout {timeout} must be a positive, finite number of seconds (e.g. --timeout 5)")


@app.callback(invoke_without_command=True)
def main_command(
    ctx: typer.Context,
    rows: Optional[int] = typer.Option(None, "--rows", help="Tile rows."),
    cols: Optional[int] = typer.Option(None, "--cols", help="Tile columns (elements)."),
    row_length: Optional[int] = typer.Option(None, "--row-length", "--pitch",
                                              help="Pitch in elements (>= cols; default cols); under --order col "
                                                   "the column length (>= rows; default rows)."),
    order: str = typer.Option("row", "--order", help="Storage order of the tile before any layout: row "
                              "(row-major) or col (column-major: CuTe's M-major atoms, Triton's order = [0, 1])."),
    dtype: Optional[str] = typer.Option(None, "--dtype", help="f64 f32 tf32 i32 u32 f16 bf16 i16 f8 e4m3 e5m2 i8 u8, b4x16_p64 b6x16_p32 (TMA's padded 4-/6-bit image), fp4 e2m1 i4 u4 (two a byte: solved as the packed bytes), half2 float2 float4 uint2 char4 ... (vectors: MMA operands read the scalar) (also fp16, torch.bfloat16, ...)."),
    elem_bytes: Optional[int] = typer.Option(None, "--elem-bytes", help="Element size in bytes (default 4)."),
    banks: int | None = typer.Option(None, "--banks", help="Number of banks (default: the --arch target's, 32 on nvidia)."),
    bank_bytes: int | None = typer.Option(None, "--bank-bytes", help="Bytes per bank word (default 4)."),
    arch: str = typer.Option("nvidia", "--arch", help="Target: nvidia (generic), sm80, sm89, sm90, sm100, sm120, "
                             "gfx90a, gfx942, gfx950, gfx1250, rdna3, rdna4 (aliases: ampere, h100, blackwell, "
                             "rtx50, cdna3, mi300x, mi355x, gfx1100, ...); or a list, sm90,gfx942, and groups "
                             "all, nvidia-all, amd, cdna, rdna: one layout for all (docs/hardware.md)."),
    access: List[str] = typer.Option([], "--access", help="MxN, MxN:s, row, col, with optional vB; or warp-level: "
                                     "warp:RxC:MxN, ldmatrix.x4[.trans], stmatrix.x2, mma-c:m16n8, "
                                     "mma-a:m16n8k8 / mma-b:m16n8k16 (operand fragments read by ld.shared; "
                                     ":mn for an M/N-major tile), cp.async (16-byte chunks, lanes along "
                                     "the rows), CuTe atoms (SM75_U32x4_LDSM_N, SM80_16x8x16_F32F16F16F32_TN:a), "
                                     "make_tiled_copy(...), make_tiled_mma(...):a; the source's index, "
                                     "'index: row = threadIdx.x, col = threadIdx.y + j; j in 0..32 step 8; "
                                     "block 32x8' (or offset:); AMD: ds_read_b128:64x1, mfma-a:32x32x8 "
                                     "(gfx1250 waves: ds_read_b128:32x1:w4); repeatable. Every form: "
                                     "docs/access-patterns.md."),
    phases: List[str] = typer.Option([], "--phases", help="TOML/JSON file of explicit phases; repeatable."),
    linear_layout: List[str] = typer.Option([], "--linear-layout",
                                            help="Triton linear layout file (JSON, str(LinearLayout) or "
                                                 "#ttg.linear) read as an access; repeatable."),
    vectors: str = typer.Option("given", "--vectors", help="given (the accesses' own vectors) or auto: the "
                                "vector of each --linear-layout, warp: or mma-c access chosen with the layout "
                                "(any invertible map of the index bits)."),
    show_phases: bool = typer.Option(False, "--show-phases",
                                     help="Show the hardware phases of each access's first placement."),
    check_layout: Optional[str] = typer.Option(None, "--check", help="Check one layout: none, Swizzle<B,M,S>, "
                                               "B,M,S, XorCols<B,M,a>, 'A then B', any answer's name; the kernel's "
                                               "own, e.g. 'expr: r * 72 + c' (notations: {notations}); or "
                                               "128B, 64B, 32B (the TMA mode)."),
    define: List[str] = typer.Option([], "-D", "--define", help="NAME=VALUE: a template constant of --check's "
                                     "layout (Swizzle<kSwizzle,3,3>, r * kStride + c) and of index:/offset: "
                                     "accesses, as a compiler's -D; repeatable."),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="Bound the search to SECONDS; on timeout "
                                            "print the best found (not proven minimal), exit 1."),
    exhaustive: bool = typer.Option(False, "--exhaustive", help="Search every later family, even those that "
                                    "cannot rank before an answer already found."),
    keep_pitch: bool = typer.Option(False, "--keep-pitch", help="Only layouts of the given row length (no padding "
                                    "added or dropped)."),
    for_targets: List[str] = typer.Option([], "--for", help="Only layouts this target expresses exactly: "
                                           "{targets}; repeatable."),
    json_out: bool = typer.Option(False, "--json", help="Print only JSON (schema_version 1)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print one line: the answer (then --emit's code, if asked)."),
    emit: List[str] = typer.Option([], "--emit", help="Code for {targets} or all; "
                                                      "repeatable."),
    show: bool = typer.Option(False, "--show", help="Draw the bank map before/after in the terminal."),
    show_access: Optional[str] = typer.Option(None, "--show-access",
                                              help="Access to outline in --show/--svg: its spec or 1-based "
                                                   "position (default: the worst unswizzled); alone, implies --show."),
    svg: Optional[str] = typer.Option(None, "--svg", help="Write the bank-map figure to this SVG file."),
    html: Optional[str] = typer.Option(None, "--html", help="Write the interactive bank map (one self-contained "
                                       "HTML file: hover cells, step through phases, the proof and the code)."),
    explain: bool = typer.Option(False, "--explain", help="Say why: the answer's reason in sentences, each tied "
                                 "to numbers of the JSON (its `explain` list; --quiet prints none)."),
    max_patterns: int = typer.Option(256, "--max-patterns", help="Refuse more access patterns than this."),
    max_placements: int = typer.Option(1 << 21, "--max-placements",
                                       help="Refuse more placements (phases) in all than this."),
    max_lanes: int = typer.Option(1 << 23, "--max-lanes", help="Refuse more lane accesses in all than this."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> int:
    """Solve: swizzle-solve --rows 8 --cols 24 --access 4x2"""
    if _nothing_to_solve(ctx, rows, cols, bool(access or phases or linear_layout), bool(access)):
        return EXIT_OK
    from .notation import defined, defined_accesses

    check_layout = defined(check_layout, list(define))  # -D's constants, as the compiler substitutes them
    assert rows is not None and cols is not None  # (_nothing_to_solve refuses a run without them)
    _check_output_options(json_out, quiet, timeout)
    from .access import limits
    from .alarm import arm_deadline

    limits.current = limits.limits_of(max_patterns, max_placements, max_lanes)
    arm_deadline(timeout)  # the whole run, report included (disarmed when printing starts)
    access, linear_layout, stores = _directions(vectors, defined_accesses(list(access), list(define)),
                                                list(linear_layout))
    _forms_above(access)
    arch, access = _one_target(arch, access, rows, cols, check_layout, json_out, quiet, list(emit), timeout,
                               exhaustive, keep_pitch, row_length=row_length, elem_bytes=elem_bytes_of(dtype, elem_bytes),
                               banks=banks, bank_bytes=bank_bytes, phases_files=list(phases),
                               layout_files=list(linear_layout), elem_bits=elem_bits_of(dtype), scalar_bytes=scalar_bytes_of(dtype), order=order,
                               alone=_takes_one_target(vectors, show, show_access, svg, show_phases, for_targets, html,
                                                       explain))
    drawing = _drawing_alone(bool(access or phases or linear_layout), show, svg, html)
    problem = make_problem(rows, cols, list(access), row_length, elem_bytes_of(dtype, elem_bytes), banks=banks,
                           bank_bytes=bank_bytes, phases_files=list(phases), layout_files=list(linear_layout), arch=arch,
                           elem_bits=elem_bits_of(dtype), scalar_bytes=scalar_bytes_of(dtype), order=order, drawing=drawing)
    layout = _given_layout(check_layout, problem)
    if vectors != "given":
        raise typer.Exit(run_vectors_auto(problem, vectors, access, phases, linear_layout, layout, json_out, quiet,
                                          list(emit), _takes_one_target("given", show, show_access, svg, False, [],
                                                                        html, explain), stores))
    out = replace(outputs_of(problem, list(emit), show, show_access, svg, json_out, quiet, html), explain=explain)
    if drawing:
        raise typer.Exit(run_draw(problem, layout, out, json_out, quiet, bool(emit)))
    if dtype is None and elem_bytes is None:  # after every input check: bad input is still one line
        _warn(defaulted_elem_warning(access))
    if layout is not None:
        code = run_check(problem, layout, json_out=json_out, quiet=quiet, out=out, show_phases=show_phases,
                         timeout=timeout)
    else:
        code = run_solve(problem, json_out=json_out, quiet=quiet, out=out, show_phases=show_phases, timeout=timeout,
                         exhaustive=exhaustive, keep_pitch=keep_pitch, for_targets=for_targets)
    raise typer.Exit(code)


def _given_layout(check_layout: Optional[str], problem: Problem) -> Layout | None:
    """--check's layout on the problem's tile (None: search)."""
    if check_layout is None:
        return None
    from .names import parse_layout

    return parse_layout(check_layout, tile=problem.tile)


def _one_target(arch: str, access: list[str], rows: int, cols: int, check_layout: Optional[str], json_out: bool,
                quiet: bool, emit: list[str], timeout: float | None, exhaustive: bool, keep_pitch: bool, alone: bool,
                **problem_options) -> tuple[str, list[str]]:
    """The one target and its accesses; --arch A,B,... (a list or a group) runs the joint solve or
    the --check matrix here and exits (``alone``: an option that takes one target was given)."""
    if not _arch_list(arch, access):
        return arch, access
    from .portable import accesses_for, arch_list

    names = arch_list(arch)
    if len(names) == 1:  # accesses given per target, one target: the plain solve of its own
        return names[0], accesses_for(names[0], access)
    if alone:
        raise InputError("--arch with several targets goes with --check, --json, --quiet, --emit, --timeout, "
                         "--keep-pitch and --exhaustive; --vectors auto, --show, --svg, --html, --explain, --show-phases "
                         "and --for take one target: run them per --arch")
    raise typer.Exit(run_arch_list(names, rows, cols, access, check_layout, json_out, quiet, emit, timeout,
                                   exhaustive, keep_pitch, **problem_options))


def _takes_one_target(vectors: str, show: bool, show_access: Optional[str], svg: Optional[str], show_phases: bool,
                      for_targets: list[str], html: Optional[str], explain: bool = False) -> bool:
    """Whether an option that takes one target was given (--vectors auto, --show, --svg, --html,
    --explain, ...)."""
    pictures = show or show_access is not None or svg is not None or html is not None
    return vectors != "given" or pictures or show_phases or bool(for_targets) or explain


def _arch_list(arch: str, access: list[str]) -> bool:
    """Whether --arch names several targets (a list or a group) or an access is given per target
    (portable.py is imported only when it may: start-up)."""
    from .hardware import target

    if target(arch) is not None and not any(":" in a for a in access):
        return False
    from .portable import GROUPS, split_access

    return "," in arch or arch.strip().lower() in GROUPS or any(split_access(a)[0] is not None for a in access)


def run_arch_list(names: list[str], rows: int, cols: int, access: list[str], check_layout: Optional[str],
                  json_out: bool, quiet: bool, emit: list[str], timeout: float | None, exhaustive: bool,
                  keep_pitch: bool, **problem_options) -> int:
    """--arch A,B,...: the --check matrix or the joint solve over each target's own problem."""
    from .budget import Budget
    from .portable import problems
    from .portable_report import run

    parts = problems(names, rows, cols, access, **problem_options)
    layout = None
    if check_layout is not None:
        from .names import parse_layout

        layout = parse_layout(check_layout, tile=parts[0].tile)
    targets: tuple = ()
    if emit:
        from .emit import parse_targets

        targets = tuple(parse_targets(emit))
    return run(parts, layout, json_out, quiet, targets, _write, Budget(timeout), exhaustive, keep_pitch)


def _drawing_alone(any_access: bool, show: bool, svg: Optional[str], html: Optional[str]) -> bool:
    """A layout drawn alone: no access named, and a picture asked for (--show, --svg, --html)."""
    return not any_access and (show or svg is not None or html is not None)


def run_draw(problem: Problem, layout: Layout | None, out: Outputs, json_out: bool, quiet: bool, emit: bool) -> int:
    """A layout drawn alone (no access named): --check's layout, or the unswizzled tile, as offsets and
    banks in the terminal (--show), an SVG or the page; nothing is counted, so nothing else is printed."""
    from .families.identity import Identity

    if json_out or emit or out.explain:
        raise InputError("--json, --emit and --explain need an access to count: add --access (the layout alone "
                         "is drawn by --show, --svg or --html)")
    from .bankmap import layout_map

    layout = layout or Identity()
    before, after = layout_map(problem, Identity()), layout_map(problem, layout)
    if out.svg is not None:
        from .svg import svg_text, write

        write(out.svg, svg_text(problem, before, after, []))
    if out.html is not None:
        from .html import layout_view, write_page

        page_view = layout_view(problem, layout)
        write_page(out.html, [page_view], page_view["title"])
    if quiet:
        _write(f"{layout.name}\n")
        return EXIT_OK
    _write(f"{layout.name} on the {problem.tile.describe()} tile: drawn alone (no access named, so nothing is "
           f"counted: the cells show offsets and banks)\n")
    if out.show:
        from .picture import picture
        from .render import Console

        console = Console()
        console.print(picture(before, after, problem.hardware.banks, console.width))
    return EXIT_OK


def _forms_above(access: list[str]) -> None:
    """Register the index: and offset: readers when a spec is one (indexed.py; start-up time)."""
    from .access import needs_forms_above

    if needs_forms_above(access):
        from . import indexed, tiled  # noqa: F401  (index:, offset: and make_tiled_copy register their readers)


def _directions(vectors: str, access: list[str], linear_layout: list[str]
                ) -> tuple[list[str], list[str], list[bool | None]]:
    """(the access specs and layout files without their store:/load: prefixes, each one's direction,
    specs first: None where not said) under --vectors auto; elsewhere the specs and files as given
    (make_problem reads the prefixes)."""
    if vectors != "auto":  # the prefixes stay: the problem's patterns carry them (access/direction.py)
        return access, linear_layout, []
    from .vectors import split_direction

    specs = [split_direction(x, "access") for x in access]
    files = [split_direction(x, "file") for x in linear_layout]
    return [x for _, x in specs], [x for _, x in files], [d for d, _ in specs + files]


def run_vectors_auto(problem: Problem, vectors: str, access, phases, linear_layout, layout, json_out: bool,
                     quiet: bool, emit: list[str], drawing: bool, stores: list[bool | None] | None = None) -> int:
    """--vectors auto (vectors.py): --linear-layout accesses and the warp forms warp: and mma-c; exit 0
    when every access moves the tile in its least wavefronts, else 1."""
    if vectors != "auto":
        raise InputError(f"--vectors {vectors!r}: use given (the default) or auto")
    if phases or not (linear_layout or access):
        raise InputError("--vectors auto chooses the vectors of register layouts: give the accesses as "
                         "--linear-layout files or the warp forms warp:RxC:MxN and mma-c (no --phases)")
    if layout is not None or drawing:
        raise InputError("--vectors auto cannot go with --check, --show, --svg, --html or --explain yet: solve "
                         "without them")
    from .emit import parse_targets
    from .vectors import auto_json, auto_text, run_auto

    targets = parse_targets(emit)
    auto = run_auto(problem, list(linear_layout), list(access), stores or [])
    if quiet:
        from .emit import emit_all

        codes = [s.code.rstrip("\n") + "\n" for s in emit_all(targets, problem, auto.answer.layout).values()]
        _write(auto.answer.layout.name + "\n" + ("\n" + "\n".join(codes) if codes else ""))
    else:
        doc = auto_json(auto, problem, targets)
        if json_out:
            import json

            _write(json.dumps(doc, indent=2) + "\n")
        else:
            _write(auto_text(doc))
    lower = sum(m.lower_bound for m in auto.answer.accesses)
    return EXIT_OK if auto.answer.wavefronts == lower else EXIT_CONFLICTS


# batch --help: its examples and exit codes, as the main command's EPILOG gives them.
BATCH_EPILOG = """\b
Examples:
  swizzle-solve batch examples.toml
  swizzle-solve batch examples.toml --list
  swizzle-solve batch examples.toml --case 'pitch 80'
  swizzle-solve batch examples.toml --json

\b
Exit codes:
  0  every case met its expectation
  1  a case failed its expectation (the table says which and why)
  2  bad input: a malformed file or case, or a --case that names no
     single case; one line on stderr, nothing on stdout, nothing solved

\b
The file's keys and a CI job: docs/ci.md; JSON: docs/json.md."""


@app.command("batch", epilog=BATCH_EPILOG)
def batch_command(
    file: str = typer.Argument(..., help="An examples.toml with [[case]] tables."),
    case: Optional[str] = typer.Option(None, "--case", help="Run only this case: its name, or any part of it "
                                       "that no other name has (case and spacing ignored)."),
    list_names: bool = typer.Option(False, "--list", help="Print the case names, one a line, and solve nothing."),
    exhaustive: bool = typer.Option(False, "--exhaustive", help="Search every later family, even those that "
                                    "cannot rank before an answer already found."),
    json_out: bool = typer.Option(False, "--json", help="Print only JSON, each case as it finishes."),
    allow_outside: bool = typer.Option(False, "--allow-outside", help="Let cases read files outside the "
                                       "examples file's folder (absolute paths, '..')."),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="Bound each case's search to SECONDS; a case "
                                            "cut short reports its best layout with status timeout and fails."),
    total_timeout: Optional[float] = typer.Option(None, "--total-timeout",
                                                  help="Bound the searches of the whole run to SECONDS; the cases "
                                                       "it cuts short or never reaches report status timeout and "
                                                       "fail."),
    jobs: str = typer.Option("1", "--jobs", "-j", metavar="N",
                             help="Work on N cases at once, each in its own process (0 or auto: one per CPU); "
                                  "the output is the same, in case order."),
    html: Optional[str] = typer.Option(None, "--html", help="Write one interactive page for every case (a case "
                                       "selector; each case as solve --html draws it).", metavar="FILE"),
) -> None:
    """Solve or check the cases of examples.toml."""
    from .cases import case_makers
    from .jobs import parse_jobs
    from .progress import LazyProgress

    _check_batch_options(list_names, json_out, timeout, total_timeout, html)
    processes = parse_jobs(jobs)
    makers = case_makers(file, case, allow_outside)  # every case checked before anything is printed
    if list_names:
        _write("".join(f"{make().name}\n" for make in makers))
        raise typer.Exit(EXIT_OK)
    times = _CaseTimes(timeout, total_timeout)
    rows, all_ok = [], True
    document = _JsonCases(len(makers)) if json_out else None
    pages: list[str] | None = None if html is None else []  # each case's view, as page text (html.py)
    with LazyProgress(enabled=_stderr_is_terminal()) as progress:
        for row in _run_cases(makers, processes, progress, times, exhaustive, document, pages):
            all_ok = all_ok and row["ok"]
            if document is None:  # the table needs only the row
                rows.append(row)
    if html is not None and pages is not None:
        from pathlib import Path

        from .html import write_texts

        write_texts(html, pages, f"swizzle-solve batch {Path(file).name}: {len(pages)} of {len(makers)} "
                                 f"cases")
    if document is not None:
        document.close()
    else:
        from .render import print_batch
        print_batch(rows)
    raise typer.Exit(EXIT_OK if all_ok else EXIT_CONFLICTS)


def _check_batch_options(list_names: bool, json_out: bool, timeout: float | None,
                         total_timeout: float | None, html: Optional[str] = None) -> None:
    for given, option in ((json_out, "--json"), (html is not None, "--html")):
        if list_names and given:
            raise InputError(f"--list and {option} both given: --list prints the case names only; choose one")
    if html is not None:
        from .svg import check_writable  # before any case is solved: nothing is written on bad input

        check_writable(html, "--html")
    for option, seconds in (("--timeout", timeout), ("--total-timeout", total_timeout)):
        if seconds is not None and not 0 < seconds < float("inf"):
            raise InputError(f"{option} {seconds} must be a positive, finite number of seconds (e.g. {option} 60)")


def _run_cases(makers, processes: int, progress, times, exhaustive: bool, document, pages: list[str] | None = None):
    """Each case's table row, in case order: in ``processes`` worker processes (batch --jobs), or here.
    ``pages`` (batch --html) gets each solved case's view as page text, in case order."""
    if processes > 1 and len(makers) > 1:
        return _run_in_processes(makers, min(processes, len(makers)), progress, times, exhaustive, document, pages)
    return (_run_case(make, i, len(makers), progress, times, exhaustive, document, pages)
            for i, make in enumerate(makers))


from .probe.command import (  # noqa: E402 (typer options only; the work is lazy)
    PROBE_COMPARE_EPILOG,
    PROBE_EPILOG,
    probe_command,
    probe_compare_command,
)

app.command("probe", epilog=PROBE_EPILOG)(probe_command)
app.command("probe-compare", epilog=PROBE_COMPARE_EPILOG)(probe_compare_command)

from .compiled.command import KERNEL_EPILOG, kernel_command  # noqa: E402 (typer options only; the work is lazy)

app.command("kernel", epilog=KERNEL_EPILOG)(kernel_command)


class _CaseTimes:
    """batch's --timeout (each case's search) and --total-timeout (the searches of the whole run,
    from its first case on): each case's budget is what is left of both."""

    def __init__(self, per_case: float | None, total: float | None):
        import time

        self.per_case = per_case
        self.deadline = None if total is None else time.monotonic() + total

    def budget(self, progress):
        return _case_budget(self.per_case, self.deadline, progress)


def _case_budget(per_case: float | None, deadline: float | None, progress):
    """A case's budget, from its start: what is left of its own and of the run's (``deadline``, on
    the monotonic clock, which every process of the machine shares: --jobs's workers too)."""
    import time

    from .budget import Budget

    seconds = per_case
    if deadline is not None:
        left = max(0.0, deadline - time.monotonic())
        seconds = left if seconds is None else min(seconds, left)
    return Budget(seconds, progress)


class _JsonCases:
    """batch --json written case by case, as each finishes, so that memory does not grow with the
    number of cases: the text is what ``json.dumps({"schema_version": 1, "cases": entries},
    indent=2)`` prints whole (each entry indented one level more; JSON strings hold no line break).
    Each entry is written with what follows it (``,`` or the document's end), so that its last line
    is whole as soon as the case is done."""

    HEAD = '{\n  "schema_version": 1,\n  "cases": ['

    def __init__(self, cases: int):
        self.cases, self.count = cases, 0

    def add(self, entry: dict) -> None:
        self.add_text(self.text(entry))

    @staticmethod
    def text(entry: dict) -> str:
        """The entry as it is written (a worker of --jobs makes it: the parent only writes it)."""
        import json

        return json.dumps(entry, indent=2).replace("\n", "\n    ")

    def add_text(self, text: str) -> None:
        self.count += 1
        _write((self.HEAD + "\n" if self.count == 1 else "") + "    " + text
               + (",\n" if self.count < self.cases else "\n  ]\n}\n"))

    def close(self) -> None:
        if self.count == 0:
            _write(self.HEAD + "]\n}\n")


def _run_case(make, i: int, count: int, progress, times: _CaseTimes, exhaustive: bool,
              document: _JsonCases | None, pages: list[str] | None = None) -> dict:
    """One case of batch, compiled again here (case_makers) and dropped on return, with its answer:
    one case in memory at a time (batch --html keeps its view's text). Its row, after its entry is
    written when ``document``."""
    c = make()
    _warn(c.warning and f"case {c.name!r}: {c.warning}")
    progress.case(c.name, i, count)
    page = None
    try:
        row, make_doc = _batch_case(c, table=document is not None or pages is not None,
                                    budget=times.budget(progress.update), exhaustive=exhaustive)
        entry = _entry(c, row, make_doc) if document is not None else None
        page = _case_page(c, row, make_doc) if pages is not None else None
    except MemoryError:  # out of memory stops the run
        raise
    except Exception as err:  # an internal error in one case, or its input refused only when solved: the others go on
        row, entry = _failed(c, err, document is not None)
    if document is not None:
        assert entry is not None
        document.add(entry)
    if pages is not None and page is not None:  # (a case that failed with an internal error has no view)
        pages.append(page)
    return row


def _case_page(c, row: dict, make_doc: Callable[[], dict]) -> str:
    """A batch case's view for --html, as page text (html.script_json): the view solve --html or
    --check --html draws, titled by the case (``make_doc``: _batch_case's _CaseDoc)."""
    from .html import case_title, document_view, script_json

    assert isinstance(make_doc, _CaseDoc)
    title = case_title(c.name, make_doc.layout.name, row["status"], row["ok"])
    return script_json(document_view(c.problem, make_doc.layout, make_doc(), make_doc.others(), make_doc.role,
                                     title=title))


class _CaseDoc:
    """How to build a batch case's JSON document (``make_doc()``), with what --html draws beside
    it: the layout (the answer, or the checked one: ``role``) and, on demand, the others the page
    offers (a solve's alternatives; a failed check's minimal, which a solve finds)."""

    def __init__(self, make_doc: Callable[[], dict], layout: Layout, others: Callable[[], list], role: str):
        self.make_doc, self.layout, self.others, self.role = make_doc, layout, others, role
        self.doc: dict | None = None

    def __call__(self) -> dict:
        if self.doc is None:  # built once: --json's entry and --html's view read the same (the view copies it)
            self.doc = self.make_doc()
        return self.doc


def _entry(c, row: dict, make_doc: Callable[[], dict]) -> dict:
    """The case's entry in batch --json."""
    entry = {"name": c.name, "ok": row["ok"], "result": make_doc()}
    if c.matrix is not None:  # a config of a [case.matrix] case: which, and its values
        entry.update(matrix=c.matrix, config=dict(c.config))
    if row.get("hint"):
        entry["hint"] = row["hint"]
    return entry


def _failed(c, err: BaseException, json_out: bool) -> tuple[dict, dict | None]:
    """A case that ended in an internal error (an exception, or with --jobs its process died), or
    whose input was refused only when it was solved (every case is compiled before anything is
    printed, case_makers, so this is what the compile could not see; stopping the run here would
    leave half of a --json document written): one line on stderr, a failed row (status ``error``),
    and an entry with ``error`` in place of ``result``."""
    if isinstance(err, InputError):
        what = f"case {c.name!r} was refused when solved: {err}; the other cases go on"
    else:
        what = f"case {c.name!r} stopped with an internal error ({type(err).__name__}: {err}); the other cases go on"
    _fail(what)
    row = {"name": c.name, "answer": "-", "status": "error", "expected": c.expectation(), "ok": False}
    return row, ({"name": c.name, "ok": False, "error": what} if json_out else None)


def _run_in_processes(makers: list, processes: int, progress, times: _CaseTimes, exhaustive: bool,
                      document: _JsonCases | None, pages: list[str] | None = None):
    """batch --jobs: the cases in ``processes`` worker processes (jobs.py), each case's warning,
    entry, view (``pages``) and row given here in case order, as _run_case gives them; a case whose
    work raised is failed here (_failed), as in one process; running out of memory stops the run."""
    import contextlib

    from .jobs import in_order

    json_out = document is not None
    tasks = [(make, json_out, exhaustive, times.per_case, times.deadline, pages is not None) for make in makers]
    with contextlib.closing(in_order(_job, tasks, processes)) as outcomes:
        for i, (ok, value) in enumerate(outcomes):
            if ok:
                warning, row, text, page = value
                _warn(warning)
                if pages is not None and page is not None:
                    pages.append(page)
            else:
                if isinstance(value, MemoryError):
                    raise value
                c = makers[i]()
                _warn(c.warning and f"case {c.name!r}: {c.warning}")
                row, entry = _failed(c, value, json_out)
                text = None if entry is None else _JsonCases.text(entry)
            progress.case(row["name"], i, len(makers))
            if document is not None:
                document.add_text(text)
            yield row


def _job(task: tuple) -> tuple[str | None, dict, str | None, str | None]:
    """One case of batch --jobs, in a worker process (jobs.in_order): its warning, its row, its
    entry's JSON text (``json_out``) and its view's page text (``html``)."""
    make, json_out, exhaustive, per_case, deadline, html = task
    c = make()
    warning = c.warning and f"case {c.name!r}: {c.warning}"
    row, make_doc = _batch_case(c, table=json_out or html, budget=_case_budget(per_case, deadline, None),
                                exhaustive=exhaustive)
    return (warning, row, _JsonCases.text(_entry(c, row, make_doc)) if json_out else None,
            _case_page(c, row, make_doc) if html else None)


def _batch_case(c, table: bool, budget=None, exhaustive: bool = False) -> tuple[dict, Callable[[], dict]]:
    """One case of batch: its table row, and how to build its JSON document (--check's or the
    solve's, which needs ``table``). ``budget`` bounds the search (batch's timeouts): a case it
    cuts short has status timeout and fails, whatever it expects."""
    if c.check is not None:
        from .api import check

        checked = check(c.check, c.problem, budget=budget)  # (the budget bounds the minimal's search only)
        status = checked.status
        ok = c.meets(checked.measured.status, checked.layout.name, usable=checked.invalid is None)
        answer, measured = checked.layout.name, checked.measured
        make_doc = _CaseDoc(checked.json, checked.layout, lambda: [] if checked.passed or checked.minimal is None
                            else [checked.minimal.layout], "checked")
    else:
        from .api import solve

        result = solve(c.problem, budget=budget, table=table, exhaustive=exhaustive, keep_pitch=c.keep_pitch,
                       for_targets=c.for_targets)
        answer, status = result.name, result.status
        ok, measured = status != "timeout" and c.meets(status, answer), result.answered.answer
        make_doc = _CaseDoc(result.json, result.layout, lambda: [x.layout for x in result.solution.alternatives],
                            "answer")
    row = {"name": c.name, "answer": answer, "status": status, "expected": c.expectation(), "ok": ok,
           **_outcome(c, checked if c.check is not None else None, ok, answer, measured)}
    hint = None if ok or c.check is not None or status == "timeout" else _expect_hint(c, answer)
    return (row if hint is None else {**row, "hint": hint}), make_doc


def _outcome(c, checked, ok: bool, answer: str, measured) -> dict:
    """The row's ``why`` (a failed check: the layout to use instead, as the --check line says it),
    and for a config of a [case.matrix] case its outcome (outcomes.py): the accesses that conflict,
    the excess, the fix, and the config's values."""
    from .outcomes import conflicting, excess_of, failed_check_why

    out: dict = {}
    fix = answer if checked is None else ""
    if checked is not None and not ok and not checked.passed:
        fix = checked.minimal_name or checked.better_name or ""
        out["why"] = failed_check_why(answer, checked.invalid, checked.minimal_name, checked.better_name)
    if c.matrix is not None:
        out.update(matrix=c.matrix, config=c.config, excess=excess_of(c.problem, measured),
                   conflicting=conflicting(c.problem, measured), fix=fix)
    return out


def _expect_hint(c, answer: str) -> str | None:
    """A failed ``expect`` that names a usable, conflict-free layout which is not the minimal one:
    the case pins a kernel's layout, which is what ``check =`` says."""
    from .api import check
    from .names import parse_layout

    if c.expect is None:
        return None
    try:
        checked = check(parse_layout(c.expect, "expect"), c.problem)
    except InputError:
        return None
    if not checked.passed:
        return None
    return (f"expect = \"{c.expect}\" is conflict-free here but not the minimal answer ({answer}): "
            f"to pin the layout your kernel uses, write check = \"{c.expect}\" instead of expect")


def _write(text: str) -> None:
    """Plain output (JSON, --quiet): flushed here, so that a reader that stopped reading (``| head``)
    is noticed here and the exit code still says what was found."""
    from .alarm import disarm_deadline

    disarm_deadline()  # printing has started: it finishes
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        from .render import stdout_gone

        stdout_gone()


def _warn(message: str | None) -> None:
    """One line on stderr that does not stop the run (stdout, which scripts parse, is unchanged)."""
    if message is not None and sys.stderr is not None:
        from .access.inputfile import printable  # one line, no CI command, as every message (docs/cli.md)

        sys.stderr.write(f"swizzle-solve: warning: {printable(message)}\n")


def _fail(message: str) -> int:
    from .access.inputfile import printable  # one line, no terminal escapes nor CI commands

    message = printable(message)
    if len(message) > 2000:  # a value quoted from a huge input: keep the start and the fix at the end
        message = f"{message[:1500]} ... {message[-400:]}"
    try:
        if sys.stderr is not None:
            sys.stderr.write(f"swizzle-solve: error: {message}\n")
            sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed or its reader gone: the exit code still says it
        pass
    return EXIT_INPUT


def _stderr_is_terminal() -> bool:
    """Whether progress may be drawn: stderr is a terminal (and not closed: 2>&-)."""
    return sys.stderr is not None and sys.stderr.isatty()


def main(argv: list[str] | None = None) -> int:
    """Entry point: every bad input becomes exit 2 and one line on stderr. Called without argv, it is
    the process's entry point (the swizzle-solve script, python -m swizzle_solver): the process ends
    when it returns."""
    code = _run(argv)
    if argv is None:
        # Move every object into the collector's permanent generation, so that the collections the
        # interpreter forces at shutdown skip them: about 20 ms of CPU, more than the solve and its
        # report (bench/startup.py). Only cyclic garbage is then left uncollected, to the OS; atexit
        # handlers and flushing run as ever, and every file written has been closed by now.
        gc.freeze()
    return code


def _run(argv: list[str] | None) -> int:
    from .access import limits
    from .alarm import disarm_deadline

    try:
        return _app(argv)
    except MemoryError:
        pass
    finally:
        limits.reset()  # the caps and the alarm were this run's (main is also called in-process)
        disarm_deadline()
    return _fail(OUT_OF_MEMORY)  # outside the except block, whose traceback holds the frames holding the memory


@functools.cache
def _command() -> Any:
    """The click command typer makes of ``app`` (every option from its function's signature), made
    once per process: typer's ``app(...)`` makes it again on every call, 6 ms, half of a small solve
    called in-process (cli.main from Python: the tests, an embedding). Calling it directly leaves out
    only typer's pretty tracebacks, which ``app`` turns off (pretty_exceptions_enable=False)."""
    return typer.main.get_command(app)


def _app(argv: list[str] | None) -> int:
    from .alarm import RunTimeout

    try:
        code = _command().main(args=argv, prog_name="swizzle-solve", standalone_mode=False)
    except InputError as err:
        return _fail(str(err))
    except RunTimeout as err:
        _fail(str(err))
        return EXIT_CONFLICTS  # as any timeout: not proven, not bad input
    except BrokenPipeError:
        return EXIT_OK
    except SystemExit as stop:
        if isinstance(stop.__context__, BrokenPipeError):  # typer's answer to a closed pipe (--help | true)
            from .render import stdout_gone

            stdout_gone()
            return EXIT_OK
        raise
    except typer.Abort:
        return _fail("aborted")
    except _click_errors.ClickException as err:
        return _fail(f"{' '.join(err.format_message().split())} (see swizzle-solve --help)")
    return code if isinstance(code, int) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
