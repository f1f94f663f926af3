"""docs/img/page.png, the README's picture of the --html page: the README's tile (as docs/bankmap.svg)
unswizzled, its 8x8 access's sixth placement stepped to (4 wavefronts, the conflicts outlined and
listed), a cell hovered; headless chromium through tests/cdp.py. Run from the checkout:

    python -m tests.page_picture docs/img/page.png
"""
from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from tests.cdp import Browser
from tests.clirun import solve

WIDTH, HEIGHT = 1240, 540  # the grid and the phase box side by side; the PNG under 150 KB


def main(out: str) -> int:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.stderr.write("page_picture: chromium is not installed\n")
        return 2
    with tempfile.TemporaryDirectory() as folder:
        page_file = Path(folder) / "page.html"
        run = solve("--rows", "16", "--cols", "32", "--dtype", "f16", "--access", "8x8", "--access", "row",
                    "--html", str(page_file), "-q")
        assert run.returncode == 0, run.stderr
        with Browser(browser, WIDTH, HEIGHT) as b:
            page = b.open(page_file.as_uri() + "#l=0&a=0&p=5")
            while not page.evaluate("Boolean(window.swz && swz.ready)"):
                time.sleep(0.05)
            page.call("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1,
                                                             "mobile": False})
            page.mouse("mouseMoved", *page.evaluate("swz.cellCentre(10, 9)"))
            time.sleep(0.2)
            size = page.screenshot(out)
    sys.stdout.write(f"{out}: {size} bytes\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/img/page.png"))
