"""``python -m training.study``: the same as ``uno-env study``."""

import sys

from training.study import main

sys.exit(main())
