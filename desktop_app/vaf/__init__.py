"""Visual-attribute variants of one target on a web page, and agents browsing them (VAF).

    settings.py   the variant table: families and their settings (the paper's 48 by default), editable
    pages.py      where a page comes from (a saved file or folder, or one of our demo pages) and its target
    patch.py      what a setting does to the page: CSS on the target only, or a DOM move (position, order)
    render.py     a variant in the browser: patched, measured (target and item boxes in page coordinates),
                  shot full page and per viewport
    study.py      a page's variants stored as episodes of kind "variant", queued for verification
    browse.py     one browsing trial's rules: scroll positions, clicks mapped to the page, which item a click hit
    prompts.py    the browsing and mention-judge messages (our wording; resources/prompts/vaf/)
    metrics.py    TCR and TMR with Wilson intervals, delta against the original, ranked tables, click maps
    tables.py     the per-variant CSV and the ranked table (Markdown), for the CLI, the report and the window
    figures.py    the delta heatmap and a click map as PNG (Pillow, no Qt)
    views.py      what the window reads of a study: pictures of pages and steps, a variant's style and verdict
"""
