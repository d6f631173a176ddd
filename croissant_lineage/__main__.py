"""``python -m croissant_lineage`` runs the CLI."""

import sys

from croissant_lineage.cli import main

sys.exit(main())
