"""A bounded mapping, least recently used evicted first, safe to share between threads: the API's
caches of solved problems and parsed accesses (memo.py) and the emit targets' remembered verdicts
(emit/__init__.py)."""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class LRU:
    """A bounded mapping, least recently used evicted first; safe to share between threads."""

    def __init__(self, size: int):
        self.size = size
        self.hits = self.misses = 0
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def resize(self, size: int) -> None:
        with self._lock:
            self.size = size
            while len(self._items) > size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)
