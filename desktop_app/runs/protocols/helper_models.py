"""A second model a run asks besides its agent (a repairer, a mention judge): named by its profile,
checked and frozen into the run's options when the run is created, thawed when it executes."""

from __future__ import annotations

from desktop_app.agents.profiles import AgentProfile, load_profiles
from desktop_app.runs.protocols.base import OptionsError


def freeze_model(name: str, role: str) -> dict:
    """The profile's snapshot; OptionsError when there is no such profile or it is not a model."""
    profile = load_profiles().get(name)
    if profile is None:
        raise OptionsError(f"no agent profile {name!r} to {role} (add it with screenlab agents add)")
    if profile.kind != "openai":
        raise OptionsError(f"the model to {role} must be an OpenAI-compatible profile; {profile.name!r} is a "
                           f"{profile.kind!r} agent")
    profile.validate()
    return profile.snapshot()


def thaw(snapshot: dict) -> AgentProfile:
    known = set(AgentProfile.__dataclass_fields__)
    return AgentProfile(**{k: v for k, v in snapshot.items() if k in known})
