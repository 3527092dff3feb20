"""Light and dark themes on the Fusion style; "system" follows the desktop's colour scheme.

A switch reaches everything already open: the application's palette changes every window and dialog, and
widgets under a style sheet (a prediction card's raw answer, a judge's label buttons), which Qt resolves once
and keeps, are polished again. Fusion draws a check box's or radio button's border too close to the window's
shade to be seen unticked: a shade darker than the window in the dark theme (1.3:1 on #2b2b2b), a light grey in
the light one (1.65:1 on #efefef, 1.9:1 in a white list). The style draws it again, in each theme, in a grey that
stands out by more than 3:1 (WCAG's least for a control's boundary) from the window and from a list.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleFactory

THEMES = ("system", "light", "dark")
DARK_INDICATOR_BORDER = "#9a9a9a"  # 5.2:1 on the window (#2b2b2b), 5.9:1 on a list (#1f1f1f)
DARK_INDICATOR_BORDER_DISABLED = "#5e5e5e"  # a greyed-out box: seen, and told apart from a usable one
LIGHT_INDICATOR_BORDER = "#767676"  # 3.95:1 on the window (#efefef), 4.5:1 on a list or the box's white inside
LIGHT_INDICATOR_BORDER_DISABLED = "#b4b4b4"  # lighter: a greyed-out box looks greyed out (1.8:1, WCAG exempts it)
_style = None  # the style applied last


def is_dark(theme: str) -> bool:
    if theme == "system":
        return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark
    return theme == "dark"


def _dark_palette() -> QPalette:
    p = QPalette()
    colors = {
        QPalette.Window: "#2b2b2b", QPalette.WindowText: "#e6e6e6", QPalette.Base: "#1f1f1f",
        QPalette.AlternateBase: "#272727", QPalette.ToolTipBase: "#3a3a3a", QPalette.ToolTipText: "#e6e6e6",
        QPalette.Text: "#e6e6e6", QPalette.Button: "#333333", QPalette.ButtonText: "#e6e6e6",
        QPalette.BrightText: "#ff5555", QPalette.Highlight: "#3d7bd9", QPalette.HighlightedText: "#ffffff",
        QPalette.Link: "#6aa7ff", QPalette.PlaceholderText: "#8c8c8c",
    }
    for role, color in colors.items():
        p.setColor(role, QColor(color))
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        p.setColor(QPalette.Disabled, role, QColor("#7a7a7a"))
    return p


class ThemeStyle(QProxyStyle):
    """Fusion, with check box and radio button borders drawn to be seen, on a dark background and a light one."""

    def __init__(self, dark: bool):
        super().__init__(QStyleFactory.create("Fusion"))
        self.dark = dark

    def drawPrimitive(self, element, option, painter, widget=None) -> None:  # noqa: N802 (Qt's name)
        super().drawPrimitive(element, option, painter, widget)
        if element not in (QStyle.PE_IndicatorCheckBox, QStyle.PE_IndicatorRadioButton):
            return  # (a list's check box is drawn as PE_IndicatorCheckBox through here too)
        enabled = bool(option.state & QStyle.State_Enabled)
        if self.dark:
            border = DARK_INDICATOR_BORDER if enabled else DARK_INDICATOR_BORDER_DISABLED
        else:
            border = LIGHT_INDICATOR_BORDER if enabled else LIGHT_INDICATOR_BORDER_DISABLED
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing)
        painter.setBrush(Qt.NoBrush)
        painter.setPen(QPen(QColor(border), 1))
        box = QRectF(option.rect).adjusted(0.5, 0.5, -1.5, -1.5)
        if element == QStyle.PE_IndicatorRadioButton:  # a curve's 1 px edge is smoothed to half its shade:
            pen = painter.pen()                          # 1.5 px keeps the ring as visible as a box's edge
            pen.setWidthF(1.5)
            painter.setPen(pen)
            painter.drawEllipse(box.adjusted(0.75, 0.75, -0.25, -0.25))
        else:
            painter.drawRoundedRect(box, 1.5, 1.5)
        painter.restore()


def apply_theme(app: QApplication, theme: str) -> None:
    global _style
    dark = is_dark(theme)
    style = _style = ThemeStyle(dark)  # held here too: the wrapper must outlive this call
    app.setStyle(style)  # the application owns it now (and deletes the one before)
    app.setPalette(_dark_palette() if dark else style.standardPalette())
    for widget in app.allWidgets():
        sheet = widget.styleSheet()
        if sheet:  # resolved once under a style sheet: polished again with the new palette, children too
            widget.setStyleSheet("")
            widget.setStyleSheet(sheet)
