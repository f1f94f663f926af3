"""swizzle-solve: the minimal shared-memory swizzle for a tile and its access patterns, with proof."""
__version__ = "0.1.0"
