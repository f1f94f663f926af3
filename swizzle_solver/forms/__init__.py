"""Typed forms of a layout in each language: records a language module both writes (``--emit``) and
reads (``--check``), with the user's two views as operations on the record, not on printed text:

- ``transpose()``: ``--order col``: the stored tile's form as the user's column-major tile (element
  (r, c) is stored at row c, column r): CuTe exchanges a layout's two top-level modes (and GMMA's
  K-major atom becomes the MN-major one), a map of offsets is kept;
- ``upcast(per)``: sub-byte elements, ``per`` to a byte: the packed bytes' form in the elements
  (every offset times ``per``: a swizzle's M up log2(per), each stride times ``per`` but the unit
  stride's, whose extent grows instead).

``cute.py``: CuTe's records (``Layout``, ``Composed``, ``Tiled``, ``Atom``; the swizzle is the cute
family's ``Swizzle``), their printers in C++ and the code a snippet declares (``Code``).
"""
