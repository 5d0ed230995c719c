"""``python -m lostcities``: the same command line as ``lostcities``."""

import sys

from lostcities.cli import main

sys.exit(main())
