"""--explain (issue 36 item 2): every number a sentence shows is a value of the JSON document.

Like tests/test_readme.py checks the README's figures: for each sentence, each ref is a JSON pointer
whose value in the document is the ref's value, and every number of the text (after the ref's
strings, such as layout names, are taken out) is one of the refs' numbers. Run on the six worked
examples of tests/data/acceptance.toml and on the 128B, 64B and 32B TMA modes checked on an f16
tile; a mutated sentence (a wrong number, a wrong ref) fails the same check.
"""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from swizzle_solver.explain import explain, resolve
from tests import clirun
from tests.test_schema import case_argv, validate

ROOT = Path(__file__).resolve().parents[1]
CASES = [c for c in tomllib.loads((ROOT / "tests" / "data" / "acceptance.toml").read_text())["case"]
         if c.get("stage", 1) == 1][:6]
F16 = ["--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--access", "row"]
NUMBER = re.compile(r"(?<![A-Za-z_\d])\d+")  # not the digits of a label such as r0 or b2


def flat(value) -> list:
    return [x for v in value for x in flat(v)] if isinstance(value, list) else [value]


def problems(sentence: dict, doc: dict) -> list[str]:
    """Why ``sentence`` is not tied to ``doc`` ([] when it is)."""
    out = []
    for pointer, value in sentence["refs"].items():
        try:
            found = resolve(doc, pointer)
        except (KeyError, IndexError, ValueError, TypeError):
            out.append(f"{pointer}: not in the document")
            continue
        if found != value:
            out.append(f"{pointer}: {value!r} in refs, {found!r} in the document")
    values = [v for ref in sentence["refs"].values() for v in flat(ref)]
    text = sentence["text"]
    for s in sorted((v for v in values if isinstance(v, str)), key=len, reverse=True):
        text = text.replace(s, " ")
    numbers = {v for v in values if isinstance(v, int) and not isinstance(v, bool)}
    out += [f"{n} in {sentence['text']!r} is no ref's value" for n in NUMBER.findall(text) if int(n) not in numbers]
    return out


def run_json(*argv: str) -> dict:
    run = clirun.solve(*argv, "--explain", "--json")
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def assert_tied(doc: dict) -> None:
    assert doc["explain"], "no sentence"
    for sentence in doc["explain"]:
        assert not problems(sentence, doc), problems(sentence, doc)
    validate(doc)


def gf2_rank(rows: list[list[int]]) -> int:
    """Rank over GF(2), by elimination written here (the proof's own is swizzle_solver/gf2.py)."""
    vectors = [int("".join(map(str, r)), 2) for r in rows]
    rank = 0
    while vectors:
        pivot = max(vectors)
        vectors.remove(pivot)
        if pivot:
            rank += 1
            top = pivot.bit_length() - 1
            vectors = [v ^ pivot if v >> top & 1 else v for v in vectors]
    return rank


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_worked_examples(case):
    doc = run_json(*case_argv(case))
    assert_tied(doc)
    texts = [s["text"] for s in doc["explain"]]
    assert texts[0].startswith(case["expect"])  # the answer is named first
    for i, access in enumerate(doc["proof"]["accesses"]):  # the rank said is the matrix's, eliminated here
        if "gf2" in access:
            said = next(s for s in doc["explain"] if f"/proof/accesses/{i}/gf2/rank" in s["refs"])
            assert said["refs"][f"/proof/accesses/{i}/gf2/rank"] == gf2_rank(access["gf2"]["matrix"])
    if doc["answer"]["family"] == "cute":  # every parameter of the triple has its sentence
        assert {f"/answer/swizzles/0/{k}" for k in "BMS"} <= {p for s in doc["explain"] for p in s["refs"]}


@pytest.mark.parametrize("mode", ["128B", "64B", "32B"])
def test_tma_modes(mode):
    doc = run_json(*F16, "--check", mode)
    assert_tied(doc)
    text = " ".join(s["text"] for s in doc["explain"])
    assert doc["answer"]["byte_cute"] is None or doc["answer"]["byte_cute"] in text
    if doc["check"]["passed"]:
        assert f"the {mode} TMA swizzle mode" in text
    else:  # a mode narrower than the 128-byte rows: the conflicting pair is named, from the proof
        banks = doc["problem"]["banks"]
        pairs = [s for s in doc["explain"] if any(p.endswith("/collision/bank") for p in s["refs"])]
        assert pairs
        for s in pairs:
            i = int(next(p for p in s["refs"] if p.endswith("/collision/bank")).split("/")[3])
            cost = doc["answer"]["per_access"][i]
            assert cost["worst_wavefronts"] > cost["lower_bound"]
            a, b, bank = (s["refs"][f"/proof/accesses/{i}/collision/{k}"] for k in ("a/word", "b/word", "bank"))
            assert a != b and a % banks == b % banks == bank  # two words of one bank, by the bank formula


def test_cheaper_candidates_fail_with_their_counts():
    doc = run_json("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4")
    cheaper = [s for s in doc["explain"] if "is cheaper" in s["text"]]
    assert cheaper
    for s in cheaper:
        alt = resolve(doc, next(p for p in s["refs"] if p.endswith("/name")).rsplit("/", 1)[0])
        assert alt["excess_wavefronts"] > doc["answer"]["excess_wavefronts"]
        assert any(c["worst_wavefronts"] > c["lower_bound"] for c in alt["per_access"])


def test_a_mutation_fails():
    doc = run_json(*F16)
    sentence = next(s for s in doc["explain"] if "Unswizzled" in s["text"])
    assert not problems(sentence, doc)
    worst = sentence["refs"]["/answer/per_access/0/baseline_worst_wavefronts"]
    wrong = {**sentence, "text": sentence["text"].replace(f"takes {worst} ", f"takes {worst + 100} ", 1)}
    assert wrong["text"] != sentence["text"] and problems(wrong, doc)
    bad_ref = {**sentence, "refs": {**sentence["refs"], "/answer/per_access/0/baseline_worst_wavefronts": worst + 1}}
    assert problems(bad_ref, doc)
    assert problems({**sentence, "refs": {**sentence["refs"], "/answer/no_such_field": 1}}, doc)


def test_explain_is_pure_on_the_document():
    doc = run_json(*F16)
    sentences = doc.pop("explain")
    assert explain(doc) == sentences  # the same document, the same sentences (determinism)


def test_rich_report_quiet_and_page(tmp_path):
    rich = clirun.solve(*F16, "--explain", env={"COLUMNS": "200"})
    assert "Why this layout" in rich.stdout
    doc = run_json(*F16)
    shown = " ".join(rich.stdout.split())  # the report wraps each sentence at spaces
    assert all(s["text"] in shown for s in doc["explain"])
    plain = clirun.solve(*F16, "-q")
    assert clirun.solve(*F16, "-q", "--explain").stdout == plain.stdout  # -q: the answer's line only
    assert "explain" not in json.loads(clirun.solve(*F16, "--json").stdout)  # only when asked
    page = tmp_path / "p.html"
    assert clirun.solve(*F16, "--explain", "--html", str(page), "-q").returncode == 0
    data = "".join(re.findall(r'class="swizzle-data">(.*?)</script>', page.read_text(), re.S))  # (cut in parts)
    first = doc["explain"][0]["text"].replace("<", "\\u003c").replace(">", "\\u003e")
    assert '"explain":[{"text":' in data and first in data


def test_a_dropped_padding_says_what_the_given_pitch_costs():
    """The answer drops the given pitch 40: the given pitch's best and its extra memory, and the S
    sentence reads the answer's pitch (32), not the given one."""
    doc = run_json("--rows", "64", "--cols", "32", "--row-length", "40", "--dtype", "f16", "--access", "ldmatrix.x4",
                   "--access", "warp:8x4:1x8")
    assert_tied(doc)
    given = next(s for s in doc["explain"] if "/search/given_pitch/extra_bytes" in s["refs"])
    assert given["refs"]["/search/given_pitch/extra_bytes"] > 0
    s_sentence = next(s for s in doc["explain"] if s["text"].startswith("S = "))
    assert s_sentence["refs"].get("/answer/padding/row_length") == 32


@pytest.mark.slow  # over a second of CPU (the later families): the slow tier
def test_a_padded_answer_says_what_the_given_pitch_leaves():
    doc = run_json("--rows", "64", "--cols", "96", "--dtype", "bf16", "--access", "8x8", "--access", "8x8:2")
    assert_tied(doc)
    given = next(s for s in doc["explain"] if "/search/given_pitch/excess_wavefronts" in s["refs"])
    assert given["refs"]["/search/given_pitch/excess_wavefronts"] > doc["answer"]["excess_wavefronts"]


def test_output_md_shows_a_real_run():
    """docs/output.md's example is what the tool prints now (COLUMNS=100)."""
    rich = clirun.solve("--rows", "64", "--cols", "64", "--dtype", "f16", "--access", "ldmatrix.x4", "--explain",
                        env={"COLUMNS": "100"})
    section = rich.stdout[rich.stdout.index("Why this layout"):].split("\n\n", 1)[0]
    assert section.strip() in (ROOT / "docs" / "output.md").read_text()
