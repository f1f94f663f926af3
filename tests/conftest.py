"""Test tiers: the default run (``python3 -m pytest -q``) is the fast tier (60 s on a quiet 2-core
machine); ``-m slow`` is the long tier, which CI (.ci/run) runs after it. Both run in CI, so moving a
test between them loses nothing; docs/contributing.md ("Test tiers") gives the rule.

What goes to the slow tier, all marked here at collection (so that a new hypothesis test needs no
decorator, and the test files stay as they are):

- every hypothesis property test (by what it is);
- the example tests marked ``@pytest.mark.slow`` by hand in their files;
- ``SLOW``: single tests or cases of over about a second whose behaviour a faster test of the fast
  tier also covers (named in each entry's reason);
- ``SAMPLED``: parametrised tests of many near-identical cases: every Nth case (in collection order,
  the first included) stays in the fast tier, the others go to slow. N is chosen so that the cases
  kept still span every parameter (a prime stride over a grid of parameters).

One small deterministic instance of each core property (admissibility, injectivity, separation and
the rank proof against the counters, every family's phys against its apply, batch and expression)
runs in the fast tier: tests/test_core_instances.py. A key here that matches no test (a renamed test
or case) moves nothing: the test stays in the fast tier, never out of both.
"""
import gc
import itertools
import os
import re
import sys
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

# Bytecode for the project's own files even where PYTHONDONTWRITEBYTECODE is set (this machine sets
# it): otherwise every xdist worker and every one of the tier's child processes (the CLI as a real
# process, batch --jobs, signals, pipes) compiles the package and each test file again, and pytest
# rewrites every test module's asserts again. Measured (one process, `--collect-only`): 10.3-11.0 s
# without the caches, 3.0 s with them. The .pyc files go to __pycache__ beside the sources (ignored
# by git), as with Python's default; what a test checks does not depend on them.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

SAMPLED = {
    # the swizzle against pycute over every (B, M, S), every element size: a spread of the grid stays
    "tests/test_pycute.py::test_byte_level_triple_is_the_element_swizzle_in_bytes": 13,
    "tests/test_pycute.py::test_element_swizzle_equals_pycute": 7,
    "tests/test_pycute.py::test_negative_shift_equals_pycute": 7,
    # every command the README and docs/ show with its answer (`# -> ...`)
    "tests/test_readme.py::test_documented_answers_are_current": 2,
    # the golden corpus, document by document
    "tests/test_cache.py::test_documents_are_the_golden_ones": 7,
    # every emit target's snippet on every example layout
    "tests/test_emit.py::test_cute_snippet_matches_pycute": 7,
    "tests/test_emit.py::test_cute_dsl_snippet_executes_to_the_layout": 7,
    "tests/test_emit.py::test_triton_snippet_follows_tritons_formulas": 3,
    # sub-byte counts against the per-byte brute force, each dtype and block shape
    "tests/test_subbyte.py::test_block_counts_are_the_per_byte_brute_force": 5,
    # the probes' tables and predictions, example by example
    "tests/test_probe.py::test_the_tables_issue_the_phases_the_model_counts": 3,
    "tests/test_probe.py::test_the_prediction_is_the_access_total_of_the_tools_own_json": 3,
    # every example's JSON against the schema; fragment counts against the per-lane brute force
    "tests/test_schema.py::test_examples_validate": 2,
    "tests/test_fragments.py::test_counts_are_the_brute_force": 2,
    # recorded hardware matrices, instruction by instruction
    "tests/test_amd.py::test_v5_v6_pairwise_matrix": 3,
    "tests/test_amd.py::test_v5_gfx950_measured_conflict_matrix": 3,  # b96: test_s8_b96_bank_sweep stays
    "tests/test_generations.py::test_each_umma_layout_is_cutes_tile_to_shape_of_the_headers_atom": 4,
    "tests/test_panels.py::test_a_panel_layout_is_its_formula_and_a_bijection": 3,
    # (test_verdicts' --timeout cuts in each output form all stay: the alarm is brought forward, no
    # 0.5 s grace waited out)
    # real processes (pipes, signals, special files): one or two of each behaviour stay
    # batch --jobs 2 against one process: the quick cases as a table and every search cut in JSON stay
    "tests/test_batch_jobs.py::test_two_processes_print_what_one_prints": 3,
    "tests/test_cli.py::test_a_reader_that_stops_reading_keeps_the_exit_code": 5,
    # a usage error stays; the tool's InputError as a process: test_robustness's
    # test_a_stderr_whose_reader_left_keeps_the_exit_code[bad input] (and its one line: every in-process test)
    "tests/test_cli.py::test_bad_input_as_a_process": 4,
    "tests/test_robustness.py::test_only_regular_files_are_read": 9,  # the FIFO under --phases stays
    "tests/test_robustness.py::test_full_stdout_is_one_line": 2,  # the rich report and -q stay
    "tests/test_robustness.py::test_a_signal_at_any_moment_of_start_up_ends_the_run": 2,
    # both closed stays (a closed stdin and a closed stderr in one process); each alone is slow
    "tests/test_robustness.py::test_a_closed_stderr_or_stdin_still_answers": 3,
    "tests/test_robustness.py::test_a_swallowed_signal_still_ends_the_run": 3,
    "tests/test_robustness.py::test_a_stderr_whose_reader_left_keeps_the_exit_code": 2,  # bad input; an answer
    "tests/test_robustness.py::test_sigint_at_any_moment_exits_130_with_one_line": 2,
    # --version stays; the solve (rich, its JSON): test_cli's test_a_reader_that_stops_reading_keeps_the_exit_code
    # runs the same solve's rich report (and -q) to a reader gone
    "tests/test_robustness.py::test_a_reader_that_leaves_early_is_no_error": 5,
    "tests/test_robustness.py::test_hostile_pattern_names_never_reach_the_terminal_raw": 2,
    "tests/test_robustness.py::test_the_depth_scan_is_linear": 3,
    # (issue 32's 65 recorded probe PTX files through kernel() all stay in the fast tier: its acceptance
    # asks for every recorded kernel there, and with -n auto the tier has the room)
    # real kernels' statements against the per-lane brute force: a transpose and three SGEMMs stay
    "tests/test_kernel_sources.py::test_kernel_counts_each_statement_as_the_brute_force": 3,
    "tests/test_kernel_sources.py::test_every_shared_instruction_is_modelled": 3,
    # --dtype fp4's element forms on every layout: the first (sw128) and every third stay, row and col
    "tests/test_subbyte_emit.py::test_cute_element_layout_is_pycutes": 3,
    "tests/test_subbyte_emit.py::test_cute_dsl_element_layout_executes": 3,
    "tests/test_subbyte_emit.py::test_mojo_element_form": 3,
}

SLOW = {
    "tests/test_readme.py::test_documented_answers_are_current[--arch gfx950 --rows 64 --cols 96 --dtype f32 "
    "--access ds_read_b96:64x1]": "a 5 s b96 solve; test_amd_instructions' b96 search stays",
    "tests/test_readme.py::test_documented_answers_are_current[--rows 48 --cols 82 --row-length 83 --access 2x16 "
    "--access row --access 4x8]": "an odd-pitch later-family solve of 4 s; the other documented answers stay",
    "tests/test_robustness.py::test_valid_phases_at_odd_pitches_are_answered":
        "the same reproducers as test_cli's test_a_lane_aligned_in_address_but_not_in_column_is_screened",
    "tests/test_cli.py::test_a_lane_aligned_in_address_but_not_in_column_is_screened[lanes1-args1]":
        "the second reproducer (5 s); the first stays",
    "tests/test_amd_instructions.py::test_b96_and_two_address_json_validate":
        "a gfx950 b96 solve (6 s) for its JSON; test_b96_search_and_evidence and test_schema's documents stay",
    "tests/test_amd_instructions.py::test_b96_search_and_evidence[96]": "the same search on 64 x 48 stays (5 s)",
    "tests/test_cli.py::test_batch_examples": "test_batch_json_and_case runs the same batch (its JSON form)",
    "tests/test_cli_conventions.py::test_piped_output_fits_80_columns[batch]": "the whole examples.toml as a "
        "table (1.5 s of CPU): test_a_batch_table_of_the_widest_examples_fits_80_columns stays (its widest rows), "
        "and test_cli's test_batch_json_and_case solves the whole file",
    "tests/test_extending.py::test_an_emit_target_is_one_module": "six processes on a copy of the package (3 s): "
        "an emit target as one module is checked in the slow tier only; the in-process extension tests stay",
    "tests/test_gpu_measured.py::test_recorded_measurements_replay_against_the_current_model"
    "[h100-2026-11-26-broadcast-2]": "the second repeat of the broadcast experiment; the first stays",
    "tests/test_batch_jobs.py::test_ctrl_c_ends_the_run_and_its_workers": "3 s of waiting for busy workers; "
        "test_robustness's SIGINT tests (one process) and test_batch_jobs' in-order and byte-identity tests stay",
    "tests/test_robustness.py::test_batch_timeout_cuts_each_case": "two batch runs cut by --timeout (3 s); "
        "test_batch_jobs' timed-out case and test_schema's test_batch_with_time_limits_validates stay",
    "tests/test_general.py::test_construction_is_the_least_over_every_invertible_map[4-8-accesses5-8]":
        "every member of a 4 x 8 tile (3 s); the four smaller tiles stay",
    "tests/test_general.py::test_construction_is_the_least_over_every_invertible_map[4-4-accesses0-4]":
        "every member of the tile with a column read (2.5 s); the four other tiles stay",
    "tests/test_gpu_measured.py::test_the_reported_counters_are_what_the_h100_measured"
    "[h100-2026-11-26-broadcast-2]": "the second repeat of the broadcast experiment; the first stays",
    "tests/test_families.py::test_a_plain_solve_imports_no_later_family": "a process for a library solve's "
        "imports; test_cli_families' test_plain_solve_imports_only_what_it_uses (one process each of the rich "
        "and the -q form) finds the same later families and z3 unimported after a plain solve",
    "tests/test_render.py::test_a_plain_solve_imports_one_emit_target": "a process for the emit targets a "
        "rich plain solve imports; test_cli_families' test_plain_solve_imports_only_what_it_uses (its rich form's "
        "process) finds the same three modules of swizzle_solver.emit",
    "tests/test_robustness.py::test_z3_passes_ctrl_c_on": "z3's own handling of Ctrl-C in a process of its own "
        "(0.7 s of CPU): test_sigint_during_z3_exits_130, which stays, interrupts a z3 check of the tool's solve "
        "and asserts z3 saw the interrupt",
    "tests/test_schema.py::test_batch_with_time_limits_validates": "a 0.2 s search cut by batch's --timeout and "
        "--total-timeout for its document; test_robustness's test_batch_total_timeout_cuts_the_run and "
        "test_batch_jobs' test_two_processes_print_what_one_prints[json-cut] (every search cut by --timeout) "
        "validate their cut documents against batch.schema.json",
    "tests/test_names.py::test_the_name_strategy_reaches_layouts":
        "hypothesis' find over the name strategy (7 s); the strategy's own property is slow already",
}


def _sampled(item, seen: dict) -> bool:
    """Whether a case of a SAMPLED test goes to the slow tier (all but every Nth)."""
    base = item.nodeid.split("[", 1)[0]
    stride = SAMPLED.get(base)
    if stride is None or "[" not in item.nodeid:
        return False
    index = seen.get(base, 0)
    seen[base] = index + 1
    return index % stride != 0


def pytest_collection_modifyitems(items):
    seen: dict = {}
    for item in items:
        if (getattr(getattr(item, "obj", None), "is_hypothesis_test", False) or _sampled(item, seen)
                or item.nodeid in SLOW or item.nodeid.split("[", 1)[0] in SLOW):
            item.add_marker(pytest.mark.slow)


# Folders and files whose every test carries one marker (each test file there sets ``pytestmark``): a
# run whose ``-m`` cannot select a test with that marker (the default run: ``not toolchain and not
# gpu``) does not import them at all, rather than importing and rewriting them only to deselect every test.
MARKED_FOLDERS = {Path(__file__).parent / "toolchains": "toolchain", Path(__file__).parent / "gpu": "gpu",
                  Path(__file__).parent / "test_html_browser.py": "toolchain"}


def pytest_ignore_collect(collection_path, config):
    marker = MARKED_FOLDERS.get(Path(collection_path))
    expression = config.getoption("markexpr")
    if marker is None or not expression:
        return None
    # the expression's value depends only on the names it holds: try every set of them with the marker
    others = sorted(set(re.findall(r"[^\s()]+", expression)) - {"and", "or", "not", marker})
    matches = Expression.compile(expression).evaluate
    # ignored only if no test carrying the marker, whatever other markers it has, could be selected
    if not any(matches(lambda name, marks=set(extra) | {marker}: name in marks)
               for n in range(len(others) + 1) for extra in itertools.combinations(others, n)):
        return True
    return None


# The garbage collector: collection builds the AST of every test module and then keeps some 7,000
# test items for the whole run; every full collection would walk all of them again (2 s of each
# worker's collection). What collection has built is long-lived: frozen (gc.freeze: never scanned,
# never freed), after each collector and at the end, so that the collector scans what the tests make.
gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_collectreport(report):
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    gc.freeze()
