"""The README stays true: the main job's output and the Python API example print what it shows."""
import re
from pathlib import Path

from swizzle_solver.cli import main

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_main_job_output_in_readme_is_current(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # a file or pipe: rich's default width
    shown = re.search(r"```\n(Tile 8 x 24 elements.*?)```", README, re.S).group(1)
    assert main(["--rows", "8", "--cols", "24", "--access", "4x2"]) == 0
    assert capsys.readouterr().out == shown


def test_setup_commands_are_what_ci_runs():
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert f"```bash\n{ci}\n```" in README


def test_python_api_example_prints_what_readme_says(capsys, tmp_path, monkeypatch):
    section = README[README.index("### Python API"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"prints\n\n```\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)  # it writes tile.svg
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == shown
    assert "<svg" in (tmp_path / "tile.svg").read_text()
