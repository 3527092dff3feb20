"""A screen of buttons whose label is light on a coloured fill or faint on white (issue 33: white "Save changes"
on green seemed to get no OCR suggestion), and for comparison one dark on light grey. Each button is marked, so
the renderer reports its box and label."""

COLOURED_BUTTONS = """<html><body style="margin:0; font-family:sans-serif; background:#fff">
<div style="padding:40px; display:flex; gap:12px">
<button data-sl-label="b" style="background:#22aa77; color:#fff; border:0; padding:10px 20px; font-size:18px">Save changes</button>
<button data-sl-label="b" style="background:#2563eb; color:#fff; border:0; padding:10px 20px; font-size:18px">Send invite</button>
<button data-sl-label="b" style="background:#fff; color:#adb5bd; border:1px solid #dee2e6; padding:10px 20px; font-size:18px">Archive project</button>
<button data-sl-label="b" style="background:#efefef; color:#111; border:1px solid #767676; padding:10px 20px; font-size:18px">Cancel</button>
</div></body></html>"""
