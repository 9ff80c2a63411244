"""What the atlas's spec and its plan both read: the format of its files and the fit deals' seeds.

Their own module because the spec checks the plan's size (:func:`training.atlas.planning.check_plan_size`):
the plan reads these without importing the spec.
"""

from __future__ import annotations

ATLAS_FORMAT = "uno-env-atlas/1"
FIT_OFFSET = 1 << 41
"""Deal seeds of the games the win-chance models are fitted on start here (never measured)."""
