"""The ``libauth`` command (``secret``, ``doctor``, ``migrate``,
``provider add``): the same Rust code as the standalone binary, run from
the native module this package already ships."""

import sys
from typing import List, Optional

from . import _native


def main(argv: Optional[List[str]] = None) -> None:
    """Run the command with ``argv`` (default: this process's arguments)
    and exit with its status: 0 ok, 1 problems found, 2 usage."""
    # Python's own buffered output first: the command writes to the
    # process's file descriptors directly.
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(_native.run_cli(list(sys.argv[1:] if argv is None else argv)))


if __name__ == "__main__":
    main()
