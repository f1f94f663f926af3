"""The process entry point (the swizzle-solve script, python -m swizzle_solver), apart from cli.py
so that it runs before numpy, rich and typer are imported.

Importing them makes hundreds of thousands of objects and no garbage, yet the cyclic collector
runs every 700 allocations meanwhile, and gets slower as the heap grows: about 25 ms of CPU, more
than the solve and its report (bench/startup.py). So the collector is off during the imports only;
the solve runs with it on, as any Python program does.
"""
import gc


def main() -> int:
    gc.disable()
    try:
        from .cli import main as cli_main
    finally:
        gc.enable()
    return cli_main()
