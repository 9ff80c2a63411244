"""``python -m training.atlas``: exactly ``uno-env atlas``."""

import sys

from training.atlas import main

sys.exit(main())
