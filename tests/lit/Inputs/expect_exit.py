#!/usr/bin/env python3
"""expect_exit.py STATUS COMMAND [ARG...]: runs COMMAND (its output passes
through) and succeeds only if it exits with STATUS. lit's `not` accepts any
non-zero status; the CLI promises specific ones (docs/cli.md)."""

import subprocess
import sys

expected = int(sys.argv[1])
status = subprocess.call(sys.argv[2:])
if status != expected:
    sys.stderr.write("expect_exit: %s exited with %d, expected %d\n"
                     % (sys.argv[2], status, expected))
    sys.exit(1)
