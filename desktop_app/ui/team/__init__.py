"""The lead's windows for an annotation team: assigning samples, watching progress and agreement, and
adjudicating double-annotated samples. Each calls desktop_app.api only."""
