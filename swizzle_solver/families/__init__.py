"""Layout families, in the order of preference of DESIGN.md section 2.

Every layout is a small frozen value with the same face:

- ``family``: the family's name as in the JSON (``none``, ``cute``, ``xor-cols``, ``two-level``,
  ``linear``, ``row-interleave``, ``padding``);
- ``name``: how a kernel author writes it (``Swizzle<1,2,3>``);
- ``order``: its rank inside the family (fewest XOR bits, then larger M, then smaller shift);
- ``phys(tile, r, c)``: physical element offsets, vectorised over numpy arrays of (r, c);
- ``invalid(tile)``: None, or why it is not a bijection of the tile onto its storage;
- ``bases(tile)``: its GF(2) bases on the bits of the element offset when it is linear there
  (power-of-two pitch), else None;
- ``expression(tile)``: the physical offset as a C expression in r and c;
- ``swizzles()``: the JSON ``swizzles`` list.

Optional: ``storage(tile)``, the elements of storage the layout needs when it is more than the
tile's own (padding); ``triton_bases(tile)`` and ``cute_form()`` for the XOR-linear families.

Each module of FAMILIES (and two_level, row_interleave) has ``candidates(tile, vector_elems)``:
every member that can matter for the tile, in preference order, that keeps vectors of
``vector_elems`` elements whole. The linear family is too large to list (z3 searches it) and
padding is searched pitch by pitch: see extended.py.
"""
from __future__ import annotations

from . import cute, identity, xor_cols

FAMILIES = (identity, cute, xor_cols)  # order of preference; searched on every solve
# Searched only when no member of FAMILIES is conflict-free (DESIGN.md section 2, item 4); their
# modules (two_level, linear, row_interleave, padding) are imported then, by extended.py, not at
# every start.
EXTENDED = ("two-level", "linear", "row-interleave", "padding")
FAMILY_RANK = {name: i for i, name in enumerate([module.FAMILY for module in FAMILIES] + list(EXTENDED))}
