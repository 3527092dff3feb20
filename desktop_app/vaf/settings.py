"""The variant table: which settings of which families a study generates.

The default is the paper's Table 1 (48 settings in eight families). The table is data: a user adds or
drops settings (the paper's own result tables name six settings Table 1 does not list), saves it as
JSON and generates from it. A family says what kind of value it takes; patch.py says what it does.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

ORIGINAL = "original"


@dataclass(frozen=True)
class Family:
    name: str
    title: str
    value_help: str  # what a value looks like, for the table editor and for errors
    pattern: str  # a value must match it (checked when a table is loaded)


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("background", "Background", "a CSS colour, e.g. #ff9800", r"#[0-9a-fA-F]{3,8}|[a-z]+"),
    Family("textColor", "Text colour", "a CSS colour, e.g. #dc3545", r"#[0-9a-fA-F]{3,8}|[a-z]+"),
    Family("fontFamily", "Font family", "a font name from the list in patch.py, e.g. georgia", r"[a-z][a-z0-9-]*"),
    Family("fontSize", "Font size", "a size in px, e.g. 20px", r"\d+(\.\d+)?px"),
    Family("position", "Position", "banner, header or sidebar", r"banner|header|sidebar"),
    Family("card_size", "Card size", "a scale factor, e.g. 1.2", r"\d+(\.\d+)?"),
    Family("clarity", "Clarity", "card|image + blur_<n>px, sharp or very_sharp, e.g. image_blur_2px",
           r"(card|image)_(blur_\d+(\.\d+)?px|sharp|very_sharp)"),
    Family("order", "Order", "middle or last", r"middle|last"),
)}


@dataclass(frozen=True)
class Setting:
    family: str
    value: str

    @property
    def name(self) -> str:
        """The paper's variant names (background_ff9800, card_clarity_blur_1px, order_last)."""
        if self.family == ORIGINAL:
            return ORIGINAL
        if self.family == "clarity":
            part, rest = self.value.split("_", 1)
            return f"{part}_clarity_{rest}"
        if self.family == "card_size":
            return f"card_size_scale_{self.value}"
        return f"{self.family}_{self.value.lstrip('#')}"


ORIGINAL_SETTING = Setting(ORIGINAL, "")

_PAPER = {  # Table 1, in its order
    "background": "#ff9800 #2196f3 #ffeb3b #00bcd4 #6f42c1 #e91e63 #4caf50",
    "textColor": "#6f42c1 #111111 #198754 #dc3545 #0d6efd",
    "fontFamily": "inter opensans roboto arial helvetica merriweather georgia times jetbrains-mono verdana comic "
                  "lucida courier",
    "fontSize": "14px 16px 18px 20px 24px",
    "position": "banner header sidebar",
    "card_size": "0.8 1.2 1.5",
    "clarity": "card_blur_1px card_blur_2px card_blur_4px image_blur_1px image_blur_2px image_blur_4px image_blur_8px "
               "card_sharp image_sharp image_very_sharp",
    "order": "middle last",
}


def paper_table() -> list[Setting]:
    """The paper's 48 settings (Table 1)."""
    return [Setting(family, value) for family, values in _PAPER.items() for value in values.split()]


class SettingsError(ValueError):
    pass


def check(settings: list[Setting], where: str = "the variant table") -> list[Setting]:
    """Known families, well-formed values, no setting twice. Raises SettingsError naming the row."""
    seen = set()
    for i, s in enumerate(settings):
        family = FAMILIES.get(s.family)
        if family is None:
            raise SettingsError(f"{where}, row {i + 1}: unknown family {s.family!r} (one of {', '.join(FAMILIES)})")
        if not re.fullmatch(family.pattern, s.value.strip()):
            raise SettingsError(f"{where}, row {i + 1}: {s.family} value {s.value!r} is not {family.value_help}")
        if s.name in seen:
            raise SettingsError(f"{where}, row {i + 1}: {s.name} is in the table twice")
        seen.add(s.name)
    return settings


def load_table(path: Path) -> list[Setting]:
    """A table saved by save_table (a JSON list of {"family", "value"})."""
    try:
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read the variant table ({exc})") from None
    if not isinstance(rows, list):
        raise SettingsError(f"{path}: expected a JSON list of {{\"family\": ..., \"value\": ...}}")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("family"), str) or not isinstance(row.get("value"), str):
            raise SettingsError(f"{path}, row {i + 1}: expected {{\"family\": text, \"value\": text}}")
        out.append(Setting(row["family"], row["value"].strip()))
    return check(out, str(path))


def save_table(settings: list[Setting], path: Path) -> None:
    Path(path).write_text(json.dumps([asdict(s) for s in check(settings)], indent=1) + "\n", encoding="utf-8")
