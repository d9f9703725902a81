"""The NumPy array types the package annotates with, declared once."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Float32Array = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
#: integer codes of any width (query, document or video codes)
Codes = npt.NDArray[np.integer[Any]]
