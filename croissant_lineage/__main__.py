"""``python -m croissant_lineage`` runs the CLI."""

import sys

from .cli import main

sys.exit(main())
