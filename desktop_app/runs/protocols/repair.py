"""The optional repair pass of the capability probes (the Sphinx authors used DeepSeek-V2): when an answer
does not follow the required format, a second model rewrites it, and the rewrite is scored beside the
original (the paper's Original -> Repaired columns). The repairer keeps the answer's choice and adds none;
"NONE" means it found no choice to keep. Its profile is frozen into the run, like a judge's captioner.
"""

from __future__ import annotations

from dataclasses import replace

from desktop_app.agents.client import RequestFailed
from desktop_app.agents.profiles import ProfileError
from desktop_app.capability import prompts
from desktop_app.runs.context import RunContext
from desktop_app.runs.protocols.helper_models import freeze_model, thaw

REQUIRED = {  # what the answer had to be, in the repairer's words
    "element": "one action on its own line, e.g. `click [3]`, `text [5] [hello]`, `swipe [2] [up]` or "
               "`press [back]`",
    "coordinate": "one action on its own line, e.g. `click [120,540]`, `text [80,200] [hello]`, "
                  "`swipe [100,900] [100,300]` or `press [back]`",
    "mcq": "the letter of one option alone: A, B, C or D",
    "bq": "Yes or No alone",
}


def freeze_repairer(options):
    """The repair model's profile, checked and frozen into the options when the run is created."""
    if not options.repair:
        return options
    return replace(options, repair_profile=freeze_model(options.repair, "repair answers"))


async def repaired(ctx: RunContext, answer: str, required: str) -> str | None:
    """The repairer's rewrite of an answer (None when the run has no repairer, it found no choice, or the
    request failed: the original then stands as it is, a format error)."""
    options = ctx.options
    if not options.repair_profile:
        return None
    try:
        agent = ctx.helper(thaw(options.repair_profile))
        reply = await ctx.chat(prompts.repair_messages(options.prompt, REQUIRED[required], answer), [], agent=agent)
    except (ProfileError, RequestFailed):
        return None
    text = reply.reply.text.strip()
    return None if not text or text.upper() == "NONE" else text
