import sys

try:  # a Ctrl-C while entry.py loads, before its handler is in place, ends the same way: one line, 130
    from .entry import main
except KeyboardInterrupt:
    sys.stderr.write("swizzle-solve: error: interrupted\n")
    sys.exit(130)

sys.exit(main())
