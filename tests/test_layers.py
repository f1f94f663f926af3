"""The input side is layered: hardware.py at the bottom, model.py's types above it, the access
package above both, and nothing below imports anything above (function-local imports included)."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "swizzle_solver"


def imported(path: Path) -> set[str]:
    """Every package module ``path`` imports, at the top or inside a function."""
    here = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = here[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - node.level + 1]
            out.add(".".join(base + tuple((node.module or "").split(".")) if node.module else base))
            if not node.module:
                out |= {".".join(base + (a.name,)) for a in node.names}
    return out


def test_hardware_imports_nothing_from_the_package():
    assert imported(PACKAGE / "hardware.py") == set()


def test_model_imports_only_hardware():
    assert imported(PACKAGE / "model.py") == {"swizzle_solver.hardware"}


def test_the_access_package_builds_only_on_model_and_hardware():
    for path in (PACKAGE / "access").glob("*.py"):
        outside = {m for m in imported(path) if not m.startswith("swizzle_solver.access")}
        assert outside <= {"swizzle_solver.model", "swizzle_solver.hardware"}, (path.name, outside)

