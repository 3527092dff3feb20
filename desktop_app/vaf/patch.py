"""What a setting does to a page: CSS on the target only, or a move of the target's DOM node.

The target is marked `data-vaf-target` in the page (resources/vaf/variant.js), so every rule here
reaches the target and its descendants and nothing else. Colours and fonts go to the target and every
element inside it (a card's title and price have their own colours); size is `zoom`, which moves the
neighbours as a bigger card would, where `transform: scale` would overlap them. Sharpening is an SVG
convolution filter added to the page, since CSS has no sharpen. Position and order move the node:
position into the page's banner strip, header or sidebar, order to the middle or the end of the list.

The paper leaves most of this unspecified (decision 0019 says what we chose and why).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_app.vaf.settings import ORIGINAL, Setting

T = "[data-vaf-target]"
T_ALL = f"{T}, {T} *"
IMAGES = f"{T} img, {T} svg, {T} picture, {T} canvas, {T} video, {T} [role=img]"

# name -> (CSS font stack, bundled file in resources/vaf/fonts or "")
FONTS: dict[str, tuple[str, str]] = {
    "inter": ('"Inter", sans-serif', "Inter.woff2"),
    "opensans": ('"Open Sans", sans-serif', "OpenSans.woff2"),
    "roboto": ('"Roboto", sans-serif', "Roboto.woff2"),
    "arial": ('Arial, "Liberation Sans", sans-serif', ""),
    "helvetica": ('Helvetica, "Nimbus Sans", "Liberation Sans", sans-serif', ""),
    "merriweather": ('"Merriweather", serif', "Merriweather.woff2"),
    "georgia": ("Georgia, serif", ""),
    "times": ('"Times New Roman", Times, "Liberation Serif", serif', ""),
    "jetbrains-mono": ('"JetBrains Mono", monospace', "JetBrainsMono.woff2"),
    "verdana": ("Verdana, sans-serif", ""),
    "comic": ('"Comic Sans MS", "Comic Neue", cursive', ""),
    "lucida": ('"Lucida Sans", "Lucida Grande", sans-serif', ""),
    "courier": ('"Courier New", Courier, "Liberation Mono", monospace', ""),
}
FONT_PATH = "__screenlab__/fonts/"  # where bundled fonts are served from, whatever the page's own folder

# 3x3 kernels summing to 1: the page keeps its brightness, edges gain contrast
KERNELS = {"sharp": "0 -1 0 -1 5 -1 0 -1 0", "very_sharp": "-1 -1 -1 -1 9 -1 -1 -1 -1"}
MOVES = {"position": ("banner", "header", "sidebar"), "order": ("middle", "last")}


@dataclass(frozen=True)
class Patch:
    css: str = ""
    move: str = ""  # banner | header | sidebar | middle | last
    svg: str = ""  # filter definitions added to the page
    fonts: dict[str, str] = field(default_factory=dict)  # family name -> bundled file
    property: str = ""  # the computed-style property the setting changes on the target (what tests check)

    def spec(self) -> dict:
        return {"css": self.css, "move": self.move, "svg": self.svg,
                "fonts": {name: FONT_PATH + file for name, file in self.fonts.items()}}


class PatchError(ValueError):
    pass


def _font(value: str) -> Patch:
    if value not in FONTS:
        raise PatchError(f"unknown font {value!r} (one of {', '.join(FONTS)})")
    stack, file = FONTS[value]
    name = stack.split(",")[0].strip('"')
    return Patch(css=f"{T_ALL} {{ font-family: {stack} !important; }}", fonts={name: file} if file else {},
                 property="font-family")


def _clarity(value: str) -> Patch:
    part, kind = value.split("_", 1)
    selector = T if part == "card" else IMAGES
    prop = "filter" if part == "card" else "image-filter"  # the target's own, or its first picture's
    if kind.startswith("blur_"):
        return Patch(css=f"{selector} {{ filter: blur({kind[5:]}) !important; }}", property=prop)
    kernel = KERNELS.get(kind)
    if kernel is None:
        raise PatchError(f"unknown clarity {value!r}")
    fid = f"vaf-{kind.replace('_', '-')}"
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" style="position:absolute">'
           f'<filter id="{fid}"><feConvolveMatrix order="3" kernelMatrix="{kernel}" preserveAlpha="true"/>'
           f"</filter></svg>")
    return Patch(css=f"{selector} {{ filter: url(#{fid}) !important; }}", svg=svg, property=prop)


_BUILD = {
    "background": lambda v: Patch(css=f"{T} {{ background-color: {v} !important; background-image: none !important; }}",
                                  property="background-color"),
    "textColor": lambda v: Patch(css=f"{T_ALL} {{ color: {v} !important; }}", property="color"),
    "fontFamily": _font,
    "fontSize": lambda v: Patch(css=f"{T_ALL} {{ font-size: {v} !important; }}", property="font-size"),
    "card_size": lambda v: Patch(css=f"{T} {{ zoom: {v} !important; }}", property="zoom"),
    "clarity": _clarity,
    "position": lambda v: Patch(move=v),
    "order": lambda v: Patch(move=v),
}


def patch_for(setting: Setting) -> Patch:
    if setting.family == ORIGINAL:
        return Patch()
    build = _BUILD.get(setting.family)
    if build is None:
        raise PatchError(f"unknown family {setting.family!r}")
    if setting.family in MOVES and setting.value not in MOVES[setting.family]:
        raise PatchError(f"{setting.family} is one of {', '.join(MOVES[setting.family])}, not {setting.value!r}")
    return build(setting.value)
