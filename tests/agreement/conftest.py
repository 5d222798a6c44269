"""Pure tests of scoring.agreement: no Django (run with ``pytest -p no:django``)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The repository root (for ``scoring``) and this folder (for agreement_examples),
# whatever pytest's import mode.
for path in (HERE.parents[1], HERE):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
