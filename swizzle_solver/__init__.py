"""swizzle-solve: the minimal shared-memory swizzle for a tile and its access patterns, with proof.

    from swizzle_solver import solve
    result = solve(rows=64, cols=64, dtype="f16", access=["8x8"])
    print(result.name, result.emit("cuda"))

The API names are loaded on first use, so `import swizzle_solver` (the CLI's path) stays cheap.
"""
__version__ = "0.1.0"

_API = {"solve": "api", "check": "api", "problem": "api", "Result": "api", "Checked": "api", "sweep": "api",
        "write_csv": "outcomes",
        "Problem": "model", "InputError": "model",
        "TARGETS": "emit", "kernel": "compiled"}
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        from importlib import import_module

        return getattr(import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module 'swizzle_solver' has no attribute {name!r}")
