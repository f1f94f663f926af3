"""Test tiers: the default run (``python3 -m pytest -q``) is the fast tier; ``-m slow`` is the long
property tier, which CI (.ci/run) runs after it.

Every hypothesis property test is in the slow tier (marked here, by what it is, so that a new one
needs no decorator); so are the few long example tests marked ``@pytest.mark.slow`` by hand. The
markers and the default deselection are declared in pyproject.toml. One small deterministic
instance of each core property (admissibility, injectivity, separation and the rank proof against
the counters, every family's phys against its apply, batch and expression) runs in the default tier:
tests/test_core_instances.py.
"""
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.slow)
