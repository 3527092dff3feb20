"""The page-variants (VAF) window: one target item of a web page restyled, the variants verified, agents'
browsing trials on them scored.

    window.py         the window and its four tabs, wired together
    page_tab.py       Page & target: the page shown, the target picked by a click, the prompt's words
    variant_table.py  the variant table (edit, save, load) and Generate variants (progress, Cancel)
    verify_tab.py     Verify: original and variant side by side, Y accept, N reject, A / D previous / next
    results_tab.py    Results: browse runs, heatmap, ranked and per-variant tables, click map, trials
    heatmap.py        the delta heatmap, painted
    click_map.py      a variant's page with the trials' clicks and the clicks per item
    replay.py         one trial step by step (Left / Right)
    page_view.py      a page picture in a QGraphicsView with boxes and dots
    calls.py          work handed to the GUI's browser thread
"""
