"""Test tiers: the default run (``python3 -m pytest -q``) is the fast tier; ``-m slow`` is the long
property tier, which CI (.ci/run) runs after it.

Every hypothesis property test is in the slow tier (marked here, by what it is, so that a new one
needs no decorator); so are the few long example tests marked ``@pytest.mark.slow`` by hand. The
markers and the default deselection are declared in pyproject.toml.
"""
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.slow)
