"""Verdicts that say what happened: a checked layout that is not usable (its own status, no code,
exit 1), in every family that has one; --timeout always prints the best layout found and says
the search timed out."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from swizzle_solver import api
from swizzle_solver.cli import main
from swizzle_solver.names import parse_layout
from swizzle_solver.soundness import soundness
from tests import clirun

ROOT = Path(__file__).resolve().parents[1]

# (family, layout name, tile and accesses as CLI options, the reason's words): an unusable member
# of every family that has one (none, the identity, is always usable). Both kinds of reason: not a
# bijection onto the storage (the family's structural check or the table's), and a split vector.
UNUSABLE = [
    ("cute", "Swizzle<1,4,1>", "--rows 6 --cols 8 --access 2x1", "not a bijection of the 48-element storage"),
    ("cute", "Swizzle<3,0,3>", "--rows 64 --cols 64 --dtype f16 --access 8x8", "splits the 16-byte vectors"),
    ("xor-cols", "XorCols<3,3,0>", "--rows 24 --cols 96 --dtype f16 --access 8x8",  # the issue's run
     "column 95 XOR 32 = 127 leaves the 96-column row"),
    ("two-level", "Swizzle<1,0,3> then Swizzle<1,4,1>", "--rows 6 --cols 8 --access 2x1",
     "not a bijection of the 48-element storage"),
    ("two-level", "Swizzle<1,3,3> then Swizzle<3,0,5>", "--rows 64 --cols 64 --dtype f16 --access 8x8",
     "splits the 16-byte vectors"),
    ("linear", "Linear[b4^=b5]", "--rows 6 --cols 8 --access 2x1", "not a bijection of the 48-element storage"),
    ("linear", "Linear[b0^=b6]", "--rows 64 --cols 64 --dtype f16 --access 8x8", "splits the 16-byte vectors"),
    ("row-interleave", "RowInterleave<T=8,k=2>", "--rows 12 --cols 16 --access 4x2",
     "the 12 rows are not a whole number of 8-row bands"),
    ("row-interleave", "RowInterleave<T=8,k=3>", "--rows 8 --cols 16 --access 4x2", "outside its 8-row band"),
    ("padding", "pitch 24 + XorCols<1,3,3>", "--rows 32 --cols 32 --access col", "below the 32 columns"),
    ("padding", "pitch 28 + XorCols<1,3,0>", "--rows 8 --cols 24 --access 8x1", "leaves the 28-column row"),
    ("padding", "pitch 40 + XorCols<1,0,0>", "--rows 32 --cols 32 --access 8x4", "splits the 16-byte vectors"),
    ("column-panels", "Panels<128B>", "--rows 12 --cols 128 --dtype f16 --access 4x8",
     "not a multiple of the atom's 8"),
    ("column-panels", "Panels<128B>", "--rows 16 --cols 128 --row-length 136 --dtype f16 --access 8x8",
     "the rows are padded"),
    ("general-linear", "OffsetBases[1, 2, 4, 8, 16, 32]", "--rows 6 --cols 8 --access 2x1",
     "need a power-of-two storage"),
    ("general-linear", "OffsetBases[2, 1, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]",
     "--rows 64 --cols 64 --dtype f16 --access 8x8", "splits the 16-byte vectors"),
]
IDS = [f"{family}:{name}" for family, name, _, _ in UNUSABLE]


def cli(*argv: str) -> tuple[int, str, str]:
    # a real process: --timeout's wall-clock alarm (SIGALRM) is what these runs test, and in pytest's
    # process a signal handler's exception raised inside another library's gc callback is swallowed
    run = clirun.process(*argv)
    return run.returncode, run.stdout, run.stderr


def test_every_family_but_none_has_an_unusable_member_here():
    """The table above covers every family of the registry that can be unusable."""
    from swizzle_solver.families import records

    families = {r.name for r in records()} - {"none"}
    assert families == {family for family, _, _, _ in UNUSABLE}


@pytest.mark.parametrize("family, name, options, why", UNUSABLE, ids=IDS)
def test_an_unusable_layout_has_its_own_status_no_code_and_exit_1(capsys, family, name, options, why):
    argv = [*options.split(), "--check", name]
    layout = parse_layout(name)
    assert layout.family == family
    checked = api.check(layout, api.problem(**_kwargs(options)))
    # the reason is the one soundness check's (soundness.py), independently of the CLI
    assert checked.invalid == soundness(checked.problem.tile, layout, checked.problem.patterns)
    assert why in checked.invalid
    assert checked.status == "not-usable" and not checked.passed

    code = main([*argv, "--json", "--emit", "cuda", "--emit", "cute"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["status"] == "not-usable" and doc["check"]["passed"] is False
    assert doc["check"]["invalid"] == checked.invalid
    answer = doc["answer"]
    assert "emit" not in answer and answer["expressible_in"] == [] and answer["tma_mode"] is None

    code = main([*argv, "--emit", "cuda"])
    out = capsys.readouterr().out
    assert code == 1 and "\nCode\n" not in out and "--emit cuda" not in out and "phys(r, c)" not in out
    assert f"No code: {name} is not usable on this tile" in " ".join(out.split())
    assert f"CHECK FAILED: {name} is not usable here: {checked.invalid}" in " ".join(out.split())
    assert "(not usable: see below)" in out

    code = main([*argv, "-q", "--emit", "cuda"])
    out = capsys.readouterr().out
    assert code == 1 and out.count("\n") == 1  # the line, and no code after it
    assert out.startswith(f"{name} not usable: {checked.invalid}; minimal: ")


def _kwargs(options: str) -> dict:
    """CLI options as api.problem's keyword arguments."""
    words, kwargs = options.split(), {"access": []}
    for key, value in zip(words[::2], words[1::2]):
        key = key.lstrip("-").replace("-", "_")
        if key == "access":
            kwargs["access"].append(value)
        else:
            kwargs[key] = value if key == "dtype" else int(value)
    return kwargs


def test_batch_check_cases_agree(capsys, tmp_path):
    """batch: a check = case of an unusable layout fails, with the status not-usable in the table and
    in its JSON, as --check and check() say."""
    cases = []
    for i, (family, name, options, _) in enumerate(UNUSABLE):
        kw = _kwargs(options)
        keys = [f"{k} = {json.dumps(v)}" for k, v in kw.items()]
        cases.append(f'[[case]]\nname = "{family} {i}"\n' + "\n".join(keys) + f"\ncheck = {json.dumps(name)}\n")
        cases.append(f'[[case]]\nname = "{family} {i} conflicts"\n' + "\n".join(keys) +
                     f'\ncheck = {json.dumps(name)}\nexpect_status = "conflicts"\n')
    path = tmp_path / "unusable.toml"
    path.write_text("\n".join(cases))
    code = main(["batch", str(path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    for entry in doc["cases"]:
        assert entry["ok"] is False and entry["result"]["status"] == "not-usable", entry["name"]
        assert "emit" not in entry["result"]["answer"]
    code = main(["batch", str(path)])
    out = capsys.readouterr().out
    assert code == 1 and out.count("not-usable") == len(cases) and f"0 passed, {len(cases)} failed" in out


# --- --timeout: always the best layout found, and that the time limit was reached ----------------

DIAGONAL = ["--rows", "32", "--cols", "32", "--access", "row", "--access", "col",
            "--phases", str(ROOT / "phases" / "main-diagonal-32.toml")]
TIMED_OUT = "time limit reached"


def _quiet_timeout_line(line: str) -> tuple[str, int]:
    """(name, excess) of a -q line past --timeout; the name reads back as a layout."""
    name, _, rest = line.partition("; ")
    assert rest.startswith(f"{TIMED_OUT}: the best found, not proven minimal, ") and rest.endswith(
        " excess wavefront(s)"), line
    parse_layout(name)
    return name, int(rest.split(", ")[-1].split()[0])


def test_quiet_timeout_is_never_a_bare_name(capsys):
    """The issue's run: -q with --timeout printed a bare `none`, which reads as "no swizzle needed"
    (or as conflicts). The line names the best layout found and says that time ran out."""
    code = main([*DIAGONAL, "--timeout", "0.001", "-q"])
    out = capsys.readouterr().out
    assert code == 1 and out.count("\n") == 1
    name, excess = _quiet_timeout_line(out.strip())
    measured = api.check(name, api.problem(32, 32, ["row", "col"], phases=[str(ROOT / "phases" / "main-diagonal-32.toml")]))
    assert measured.measured.excess == excess and excess > 0
    code = main([*DIAGONAL, "--timeout", "0.001", "-q", "--emit", "cuda"])  # the code still follows the line
    out = capsys.readouterr().out
    assert code == 1 and TIMED_OUT in out.splitlines()[0] and "phys(" in out


def _many_patterns(tmp_path, count: int = 3000) -> str:
    """3000 one-lane patterns: a search that stops in time, and a report (runners-up measured,
    evidence, JSON) that takes seconds: the issue's "--timeout can print nothing"."""
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"pattern": [{"name": f"p{i}", "phases": [[[i % 16, 0, 4]]]} for i in range(count)]}))
    return str(path)


def _assert_timeout_output(form: str, code: int, out: str, argv: list[str]) -> None:
    """The output of a run past --timeout: exit 1, the best layout found, and the time limit said."""
    from test_schema import validate

    assert code == 1 and out.strip(), argv
    if form == "--json":
        doc = json.loads(out)
        validate(doc)
        assert doc["status"] == "timeout" and doc["answer"]["name"] and doc["proof"]["accesses"]
        assert len(doc["answer"]["per_access"]) == len(doc["problem"]["accesses"])
    elif form == "-q":
        assert out.count("\n") == 1 and TIMED_OUT in out
        parse_layout(out.partition(";")[0])
    else:
        text = " ".join(out.split())
        assert "Time limit reached" in text and "phys(r, c) = " in text


def _slow_until_the_alarm(*args, **kwargs):
    """A step made slow: the run's own alarm (alarm.arm_deadline's SIGALRM handler, armed for
    --timeout plus its grace) is brought forward to now and interrupts it, so the cut falls in this
    step on any machine without waiting out the grace (0.5 s; test_robustness's
    test_the_run_alarm_stops_any_step_and_is_undone waits for the alarm as armed)."""
    import signal
    import time

    assert callable(signal.getsignal(signal.SIGALRM)), "--timeout armed no alarm"
    signal.setitimer(signal.ITIMER_REAL, 0.001)
    time.sleep(30)


@pytest.mark.parametrize("form", ["", "-q", "--json"])
def test_a_report_past_the_timeout_is_printed_short(monkeypatch, capsys, tmp_path, form):
    """The alarm fires while the report is built (made slow here, so that it does on any machine):
    the answer, already found, is printed in its short form; --json's validates. (-q builds the
    report only for --svg's figure.)"""
    import time

    from swizzle_solver import report

    monkeypatch.setattr(report, "solution_json", _slow_until_the_alarm)
    argv = ["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "8x8", "--timeout", "0.05"]
    argv += ["-q", "--svg", str(tmp_path / "bank.svg")] if form == "-q" else [form] if form else []
    start = time.monotonic()
    code = main(argv)
    out = capsys.readouterr().out
    assert time.monotonic() - start < 10
    _assert_timeout_output(form, code, out, argv)
    if form == "--json":  # the solve had finished: the answer is the proven minimal one
        doc = json.loads(out)
        assert doc["answer"]["name"] == "Swizzle<3,3,3>" and doc["proof"]["proven_minimal"] is True
        assert "building its report" in doc["short_report"] and doc["search"]["families"]
    elif not form:
        assert "Swizzle<3,3,3>" in out and "is proven minimal" in " ".join(out.split())


@pytest.mark.parametrize("form", ["", "-q", "--json"])
def test_a_search_past_the_timeout_prints_the_best_found(monkeypatch, capsys, form):
    """The alarm fires inside the solve, in a step no budget bounds (made slow here): the best
    candidate the search had noted is measured and printed."""
    from swizzle_solver import solving

    monkeypatch.setattr(solving, "_at_pitches", _slow_until_the_alarm)  # after the first conflict-free member
    argv = ["--rows", "32", "--cols", "32", "--row-length", "40", "--access", "8x4", "--timeout", "0.05"]
    argv += [form] if form else []
    code = main(argv)
    out = capsys.readouterr().out
    _assert_timeout_output(form, code, out, argv)
    if form == "--json":
        doc = json.loads(out)
        found = solving.first_conflict_free(api.problem(32, 32, ["8x4"], row_length=40))
        assert doc["answer"]["name"] == found.layout.name and doc["answer"]["excess_wavefronts"] == 0
        assert doc["proof"]["proven_minimal"] is False and "the search" in doc["short_report"]


@pytest.mark.parametrize("form", ["", "-q", "--json"])
def test_a_check_past_the_timeout_prints_its_verdict(monkeypatch, capsys, form):
    """--check: the alarm fires in the search for the minimal layout (made slow here): the check's
    own verdict is printed, the minimal layout said not searched."""
    from swizzle_solver import api as api_module

    monkeypatch.setattr(api_module, "solve", _slow_until_the_alarm)
    argv = ["--rows", "24", "--cols", "96", "--dtype", "f16", "--access", "8x8", "--check", "XorCols<3,3,0>",
            "--timeout", "0.05"] + ([form] if form else [])
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 1 and out.strip()
    if form == "--json":
        from test_schema import validate

        doc = json.loads(out)
        validate(doc)
        assert doc["status"] == "timeout" and doc["check"]["passed"] is False and doc["check"]["minimal"] is None
        assert "column 95 XOR 32 = 127" in doc["check"]["invalid"] and "the check" in doc["short_report"]
    elif form == "-q":
        assert out == ("XorCols<3,3,0> not usable: column 95 XOR 32 = 127 leaves the 96-column row; "
                       "time limit reached: minimal not searched\n")
    else:
        text = " ".join(out.split())
        assert "CHECK FAILED: XorCols<3,3,0> is not usable here" in text and "minimal: not searched" in text
        assert "phys(r, c)" not in text  # no code for a layout that is not usable, even short


@pytest.mark.slow  # three processes of seconds each (tests/test_robustness.py has the --json run in the fast tier)
@pytest.mark.parametrize("form", ["", "-q", "--json"])
def test_the_issue_run_with_thousands_of_patterns_always_prints(tmp_path, form):
    """The reproducer through the real process: 3000 patterns, --timeout 0.3. It printed nothing
    (rich, --json) and one line on stderr; now the best layout found, and that time ran out. On a
    machine fast enough to finish the whole report in time, the full report is printed instead."""
    import time

    argv = ["--rows", "16", "--cols", "16", "--phases", _many_patterns(tmp_path), "--max-patterns", "5000",
            "--timeout", "0.3"] + ([form] if form else [])
    start = time.monotonic()
    code, out, err = cli(*argv)
    elapsed = time.monotonic() - start
    assert err == "" and elapsed < 0.3 + 0.5 + 10  # the grace, then at most two measurements and start-up
    if code == 0:  # it all fitted: the full answer
        assert out.strip() and TIMED_OUT not in out and "Time limit reached" not in out
    else:
        _assert_timeout_output(form, code, out, argv)


def test_timeout_cuts_only_the_table_once_the_answer_is_known():
    """The first conflict-free member is the answer; --timeout then cuts the candidates table's
    branch and bound (it ran unbounded, for seconds on thousands of accesses): the answer and its
    status stay, proven; the table holds it, and its families say they were cut."""
    from swizzle_solver.budget import Budget
    from swizzle_solver.solving import solve

    class AfterTheAnswer(Budget):
        """Expires once the first conflict-free member has been noted (Budget.best)."""

        def expired(self) -> bool:
            return self.best is not None

    problem = api.problem(64, 64, ["8x8", "row"], dtype="f16")
    cut = solve(problem, budget=AfterTheAnswer(timeout=10))
    whole = solve(problem)
    assert cut.answer.layout == whole.answer.layout and cut.status == whole.status == "conflict-free"
    assert cut.unproven is None and not cut.timed_out
    assert [c.layout for c in cut.alternatives] != [c.layout for c in whole.alternatives]
    assert not all(f.complete for f in cut.families) and all(f.complete for f in whole.families)
    doc = api.Result(cut).json()
    from test_schema import validate

    validate(doc)
    assert doc["status"] == "conflict-free" and doc["answer"]["name"] == whole.answer.layout.name


@pytest.mark.slow  # six processes of about a second each
@pytest.mark.parametrize("timeout", ["0.01", "0.2"])
@pytest.mark.parametrize("form", ["", "-q", "--json"])
def test_a_big_tile_with_a_hard_problem_always_prints(form, timeout):
    """The brief's other reproducer: a 256 x 256 f16 tile whose accesses no every-solve family serves
    conflict-free, so the later families are searched; at 0.2 s the rich report printed nothing when
    the machine was loaded. Whichever part the time limit cuts, the best layout found is printed and
    the time limit said (or, all in time, the full answer)."""
    argv = ["--rows", "256", "--cols", "256", "--dtype", "f16", "--access", "8x8", "--access", "8x8:2", "--access",
            "col", "--access", "row", "--timeout", timeout] + ([form] if form else [])
    code, out, err = cli(*argv)
    assert err == "" and code == 1  # conflicts at best (the floors), or a timeout
    if form == "--json":
        from test_schema import validate

        doc = json.loads(out)
        validate(doc)
        assert doc["answer"]["name"] and doc["status"] in ("timeout", "conflicts")
    elif form == "-q":
        assert out.count("\n") == 1
        parse_layout(out.partition(";")[0].strip())
    else:
        text = " ".join(out.split())
        assert "phys(r, c) = " in text and ("Time limit reached" in text or "least any such layout leaves" in text)
