"""Coordinate spaces of model answers, and the mapping back to original image pixels.

Models answer in one of these spaces:

- ``rel_1000``: integers 0-1000 (Qwen2-VL, UI-TARS v1, OS-Atlas, CogAgent-9B, Qwen3-VL)
- ``rel_999``: integers 000-999 (CogAgent-18B, as EnvDistraction scores it: x / 999 * W)
- ``rel_1``: floats 0-1 (SeeClick, ShowUI)
- ``abs_px_resized``: pixels of the image the model actually saw, after Qwen's ``smart_resize``
  (Qwen2.5-VL, UI-TARS-1.5); mapped back with x * W / new_w
- ``abs_px_original``: pixels of the original screenshot

Nothing is clamped: a point outside the image stays outside, and scoring calls it invalid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

# Qwen2.5-VL (qwen_vl_utils): the vision encoder works on 28x28 patches after a 2x2 merge.
QWEN25VL_FACTOR = 28
QWEN25VL_MIN_PIXELS = 4 * 28 * 28  # 3136
QWEN25VL_MAX_PIXELS = 16384 * 28 * 28  # 12845056
# UI-TARS-1.5 (codes/ui_tars/action_parser.py): same factor, a larger minimum.
UITARS15_FACTOR = 28
UITARS15_MIN_PIXELS = 100 * 28 * 28  # 78400
UITARS15_MAX_PIXELS = 16384 * 28 * 28
# Qwen3-VL uses 16px patches merged 2x2; its answers are rel_1000 again, so this only matters for
# users who run it with resized-pixel prompts.
QWEN3VL_FACTOR = 32
MAX_RATIO = 200

# Ready-made resize parameters for the conventions whose answers are resized-image pixels.
QWEN25VL_RESIZE = {"factor": QWEN25VL_FACTOR, "min_pixels": QWEN25VL_MIN_PIXELS, "max_pixels": QWEN25VL_MAX_PIXELS}
UITARS15_RESIZE = {"factor": UITARS15_FACTOR, "min_pixels": UITARS15_MIN_PIXELS, "max_pixels": UITARS15_MAX_PIXELS}

SPACES = ("rel_1000", "rel_999", "rel_1", "abs_px_resized", "abs_px_original", "text")


def smart_resize(height: int, width: int, factor: int = QWEN25VL_FACTOR, min_pixels: int = QWEN25VL_MIN_PIXELS,
                 max_pixels: int = QWEN25VL_MAX_PIXELS, max_ratio: float = MAX_RATIO) -> tuple[int, int]:
    """The size (new_h, new_w) the Qwen2-VL family resizes an image to before the model sees it.

    Both sides become multiples of `factor`, the pixel count lands in [min_pixels, max_pixels]
    and the aspect ratio is kept as closely as possible. Python's round() is banker's rounding
    (round(36.5) == 36); the models were trained with exactly this, which is why a JavaScript
    port that rounds .5 up lands on a different size (UI-TARS-desktop #1730).
    """
    if height <= 0 or width <= 0 or factor <= 0:
        raise ValueError(f"smart_resize needs positive sizes, got {width}x{height} (factor {factor})")
    if max(height, width) / min(height, width) > max_ratio:
        raise ValueError(f"absolute aspect ratio must be smaller than {max_ratio}, "
                         f"got {max(height, width) / min(height, width):.1f}")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        # max(factor, ...) as in current qwen_vl_utils: only matters for tiny max_pixels
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


@dataclass(frozen=True)
class Geometry:
    """The original image size, plus smart_resize parameters for abs_px_resized answers.

    Unset resize parameters fall back to the Qwen2.5-VL defaults; conventions fill in their own
    defaults before parsing (see Convention.resize_defaults).
    """

    width: int
    height: int
    factor: int | None = None
    min_pixels: int | None = None
    max_pixels: int | None = None

    def __post_init__(self) -> None:
        # a caller error (a broken screen record), not a model error: refuse it loudly
        if not (self.width > 0 and self.height > 0):
            raise ValueError(f"image size must be positive, got {self.width}x{self.height}")

    def with_defaults(self, defaults: dict) -> Geometry:
        """This geometry with unset resize parameters taken from `defaults` (a convention's)."""
        filled = {k: v for k, v in defaults.items() if getattr(self, k, None) is None}
        return replace(self, **filled) if filled else self

    def resized(self) -> tuple[int, int]:
        """(new_h, new_w) of the image the model saw."""
        return smart_resize(self.height, self.width, self.factor or QWEN25VL_FACTOR,
                            self.min_pixels or QWEN25VL_MIN_PIXELS, self.max_pixels or QWEN25VL_MAX_PIXELS)

    def to_original(self, x: float, y: float, space: str) -> tuple[float, float]:
        """A point in `space` as original image pixels (not clamped)."""
        return to_original(x, y, space, self)

    def from_original(self, x: float, y: float, space: str) -> tuple[float, float]:
        """The inverse of to_original: where an original-pixel point lies in `space`."""
        sx, sy = to_original(1, 1, space, self)  # every mapping is a pure scale
        return x / sx, y / sy


def to_original(x: float, y: float, space: str, geometry: Geometry) -> tuple[float, float]:
    w, h = geometry.width, geometry.height
    if space == "rel_1000":
        return x * w / 1000, y * h / 1000
    if space == "rel_999":
        return x * w / 999, y * h / 999
    if space == "rel_1":
        return x * w, y * h
    if space == "abs_px_resized":
        new_h, new_w = geometry.resized()
        return x * w / new_w, y * h / new_h
    if space == "abs_px_original":
        return float(x), float(y)
    raise ValueError(f"no point mapping for coordinate space '{space}' (one of {', '.join(SPACES[:-1])})")
