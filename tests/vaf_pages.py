"""A small shop page for the VAF tests: a header, a sidebar, a list of nine cards (the first the target),
and an image that is a real file beside the page."""

from __future__ import annotations

from pathlib import Path

CARDS = ["Alpha 14 laptop", "Beta 15 laptop", "Gamma 13 laptop", "Delta 16 laptop", "Epsilon 14 laptop",
         "Zeta 15 laptop", "Eta 13 laptop", "Theta 17 laptop", "Iota 14 laptop"]
STYLE = """
body{margin:0;font-family:Arial,sans-serif} header{height:80px;background:#223;color:#fff;padding:10px}
.wrap{display:flex} aside{width:260px;background:#eee;min-height:400px} main{flex:1}
ul{list-style:none;margin:0;padding:0}
.card{height:300px;margin:10px;border:1px solid #ccc;padding:8px;color:#0f1111;font-size:18px;background:transparent;
      transition:background-color 2s, color 2s}
.card img{width:120px;height:90px;display:block}
"""


def write_shop(folder: Path, extra_head: str = "", target_id: str = "target") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    cards = "\n".join(f'<li class="card"{f" id={target_id!r}" if i == 0 else ""}><img src="pic.svg" alt="">'
                      f'<a href="#">{name}</a><p>${199 + 50 * i}</p></li>' for i, name in enumerate(CARDS))
    (folder / "index.html").write_text(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><style>{STYLE}</style>{extra_head}</head>'
        f'<body><header>Shop</header><div class="wrap"><aside>Filters</aside><main><ul class="list">{cards}'
        f'</ul></main></div></body></html>', encoding="utf-8")
    (folder / "pic.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="90">'
                                    '<rect width="120" height="90" fill="#4a8"/><circle cx="60" cy="45" r="30" '
                                    'fill="#fff"/></svg>', encoding="utf-8")
    return folder
