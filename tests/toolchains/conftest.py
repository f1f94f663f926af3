"""Fixtures of the toolchain tier (see toolchain_cases.py)."""
import pytest
from toolchain_cases import solve_all


@pytest.fixture(scope="session")
def answers() -> dict[str, dict]:
    """Every case's `--emit all --json` document, solved once for all toolchains."""
    return solve_all()
