"""A sample selection as the API takes it: an EpisodeFilter, a dict of its fields, or None for everything."""

from __future__ import annotations

from desktop_app.store.queries import EpisodeFilter

Where = EpisodeFilter | dict | None


def filter_of(value: Where) -> EpisodeFilter:
    if value is None:
        return EpisodeFilter()
    if isinstance(value, EpisodeFilter):
        return value
    unknown = set(value) - set(EpisodeFilter.__dataclass_fields__)
    if unknown:
        raise ValueError(f"unknown selection field(s) {', '.join(sorted(unknown))} "
                         f"(one of {', '.join(EpisodeFilter.__dataclass_fields__)})")
    return EpisodeFilter(**{k: tuple(v) if isinstance(v, list | set) else v for k, v in value.items()})
