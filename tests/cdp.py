"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``, standard library only
(issue 36's real-browser test: tests/test_html_browser.py).

Chromium started with ``--remote-debugging-pipe`` reads commands on its fd 3 and writes answers and
events on its fd 4, each message one JSON object ended by a NUL byte. The browser target is the one
spoken to first; ``Browser.open`` makes a page (Target.createTarget), attaches to it in flat mode
(``flatten``: the page's commands carry its ``sessionId`` on the same pipe) and returns a ``Page``.
"""
from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

# Run in every document before its own scripts: the main thread's long tasks (over 50 ms: the Long
# Tasks API), as [start, duration] in ms from navigation, in window.__longTasks.
LONG_TASKS = """window.__longTasks = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
  .observe({ type: "longtask" });"""


class CdpError(RuntimeError):
    pass


class Browser:
    """One headless chromium process and its pipe. Use as a context manager (the process is ended,
    by its own pid, on exit)."""

    def __init__(self, executable: str, width: int = 1300, height: int = 900, timeout: float = 60.0):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def fds_3_and_4():  # (in the child, before exec) chromium's fixed fds for the pipe, inheritable
            high = os.dup(to_chrome_r), os.dup(from_chrome_w)  # (either end may be 3 or 4 already)
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="cdp-profile-")  # a fresh profile: no cache, no state
        self.process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update", "--mute-audio",
             f"--window-size={width},{height}", f"--user-data-dir={self.profile}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds_3_and_4, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict] = []  # every event received, in order (method, params, sessionId)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(CdpError, OSError):
                self.call("Browser.close")
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        for fd in (self._to_chrome, self._from_chrome):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _send(self, message: dict) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_chrome, data):]

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("no answer from chromium in time")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    raise CdpError("chromium closed its pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Send one command and wait for its answer (events received meanwhile are kept)."""
        self._next += 1
        ident = self._next
        message: dict = {"id": ident, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self._send(message)
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == ident:
                if "error" in answer:
                    raise CdpError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def wait_event(self, method: str, session: str | None = None, after: int = 0) -> dict:
        """The first event ``method`` (of ``session``) at or past index ``after`` of ``events``."""
        deadline = time.monotonic() + self.timeout
        index = after
        while True:
            while index < len(self.events):
                e = self.events[index]
                index += 1
                if e["method"] == method and (session is None or e.get("sessionId") == session):
                    return e
            message = self._receive(deadline)
            if "method" in message:
                self.events.append(message)

    def open(self, url: str) -> Page:
        """A new page (tab) attached in flat mode, with Network, Page and Runtime enabled, at ``url``
        once its load event fired."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        for domain in ("Network", "Page", "Runtime"):
            page.call(f"{domain}.enable")
        page.call("Page.addScriptToEvaluateOnNewDocument", {"source": LONG_TASKS})
        page.navigate(url)
        return page


class Page:
    def __init__(self, browser: Browser, session: str):
        self.browser, self.session = browser, session

    def call(self, method: str, params: dict | None = None) -> dict:
        return self.browser.call(method, params, self.session)

    def navigate(self, url: str) -> None:
        mark = len(self.browser.events)
        answer = self.call("Page.navigate", {"url": url})
        if answer.get("errorText"):
            raise CdpError(f"navigate {url}: {answer['errorText']}")
        self.browser.wait_event("Page.loadEventFired", self.session, mark)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (a promise awaited), returned by value."""
        answer = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in answer:
            raise CdpError(f"{expression[:80]}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def mouse(self, kind: str, x: float, y: float, button: str = "none", clicks: int = 0) -> None:
        """Input.dispatchMouseEvent: ``kind`` mouseMoved, mousePressed, mouseReleased (CSS pixels)."""
        self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": button,
                                               "clickCount": clicks})

    def click(self, x: float, y: float) -> None:
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, "left", 1)
        self.mouse("mouseReleased", x, y, "left", 1)

    def screenshot(self, path) -> int:
        """A PNG of the viewport written to ``path``; its size in bytes."""
        import base64

        data = base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])
        with open(path, "wb") as f:
            f.write(data)
        return len(data)

    def requests(self) -> list[str]:
        """The URL of every request the page made (Network.requestWillBeSent), in order."""
        return [e["params"]["request"]["url"] for e in self.browser.events
                if e["method"] == "Network.requestWillBeSent" and e.get("sessionId") == self.session]
