"""Asking an LLM for JSON: one prompt template, one schema, retries with the validation error.

Every call is recorded (template, prompt text, raw answers, token counts) so the sample
carries its full provenance. Model output is data: parsed as JSON, validated, never run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import jinja2

from desktop_app.agents.prompts import prompt_templates
from desktop_app.llm_retry import RetryPolicy, openai_client
from desktop_app.secrets import LLM_ENDPOINT_OWNER, redact, redact_keys, resolve_key
from desktop_app.synth.schema import SchemaError, validate

MAX_ATTEMPTS = 3  # answers asked for when the last one did not validate
# Requests after the first when the endpoint fails (llm_retry.py, the one policy for LLM calls): one, so a hung
# endpoint costs at most two timeouts, not three (the issue saw 275 s); a batch stops at an endpoint that fails.
SYNTH_RETRIES = 1


class SynthError(RuntimeError):
    """A generation step could not produce a valid answer; the sample is skipped and reported."""


class EndpointError(SynthError):
    """The endpoint itself failed (down, timed out, an HTTP error, a broken body): asking it again for the
    next sample would fail the same way, so a batch stops."""


@dataclass
class LlmEndpoint:
    base_url: str
    model: str
    temperature: float = 1.0
    api_key_env: str = ""
    use_keyring: bool = False
    timeout_s: float = 90.0
    max_tokens: int = 800

    def client(self):
        return openai_client(self.base_url, resolve_key(LLM_ENDPOINT_OWNER, self.api_key_env, self.use_keyring),
                             self.timeout_s)

    @classmethod
    def from_settings(cls, settings) -> LlmEndpoint | None:
        if not (settings.llm_base_url and settings.llm_model):
            return None
        return cls(settings.llm_base_url, settings.llm_model, settings.llm_temperature,
                   settings.llm_api_key_env, settings.llm_use_keyring)


def _env() -> jinja2.Environment:
    return prompt_templates("synth", "navi")


def prompt_text(template: str, **values: Any) -> str:
    return _env().get_template(template).render(**values).strip()


class LlmSession:
    """One client for a generation run; `ask` returns validated data and records the call."""

    SYSTEM = ("You write realistic user-interface text for a research dataset about how GUI agents "
              "react to distractions. Answer with JSON only, exactly in the shape asked for.")

    def __init__(self, endpoint: LlmEndpoint, temperature: float | None = None):
        self.endpoint = endpoint
        self.temperature = endpoint.temperature if temperature is None else temperature
        self._client = endpoint.client()
        self.retry = RetryPolicy(SYNTH_RETRIES)

    def _create(self, messages: list[dict]):
        """One request; whatever the endpoint does wrong (down, a timeout, 4xx / 5xx, a body that is not JSON
        or not UTF-8) ends as one SynthError naming the endpoint, never a traceback, never a key."""
        import openai

        attempts = 0
        while True:
            attempts += 1
            try:
                return self._client.chat.completions.create(
                    model=self.endpoint.model, messages=messages, temperature=self.temperature,
                    max_tokens=self.endpoint.max_tokens)
            except (openai.APIError, ValueError, UnicodeDecodeError) as exc:  # APIError: connection, timeouts too
                wait = self.retry.wait_before_next(exc, attempts)
                if wait is None:
                    raise self._failed(exc) from None
                time.sleep(wait)

    def _failed(self, exc: Exception) -> EndpointError:
        import openai

        what = f"HTTP {exc.status_code}" if isinstance(exc, openai.APIStatusError) else type(exc).__name__
        detail = redact(str(getattr(exc, "message", "") or exc), (getattr(self._client, "api_key", "") or "",))
        return EndpointError(f"the LLM at {self.endpoint.base_url} failed ({what}: {detail[:200]}); check the address, "
                             f"the model name {self.endpoint.model!r} and the key in Settings")

    def ask(self, template: str, spec: Any, calls: list[dict], image: bytes | None = None, **values: Any) -> Any:
        """`image`: a PNG shown with the prompt (the step screenshot with its target marked)."""
        prompt = prompt_text(template, **values)
        content: Any = prompt
        if image is not None:
            import base64

            url = "data:image/png;base64," + base64.b64encode(image).decode()
            content = [{"type": "text", "text": prompt}, {"type": "image_url", "image_url": {"url": url}}]
        messages = [{"role": "system", "content": self.SYSTEM}, {"role": "user", "content": content}]
        record = {"step": template.removesuffix(".j2"), "template": template, "prompt": prompt,
                  "image": image is not None, "answers": [],
                  "prompt_tokens": 0, "completion_tokens": 0, "temperature": self.temperature}
        calls.append(record)
        error = ""
        for _ in range(MAX_ATTEMPTS):
            started = time.perf_counter()
            response = self._create(messages)
            text = (response.choices[0].message.content or "") if response.choices else ""
            # the answer becomes page text, a screenshot and the sample's record: a key a careless server or
            # proxy echoed into it is taken out first
            text = redact_keys(text, (getattr(self._client, "api_key", "") or "",))
            usage = response.usage
            record["prompt_tokens"] += getattr(usage, "prompt_tokens", 0) or 0
            record["completion_tokens"] += getattr(usage, "completion_tokens", 0) or 0
            record["answers"].append({"text": text, "ms": round((time.perf_counter() - started) * 1000)})
            try:
                return validate(text, spec)
            except SchemaError as exc:
                error = str(exc)
                record["answers"][-1]["error"] = error
                messages += [{"role": "assistant", "content": text},
                             {"role": "user", "content": f"That answer was not usable: {error}. "
                                                         "Answer again with only the corrected JSON."}]
        raise SynthError(f"step '{record['step']}': no valid answer after {MAX_ATTEMPTS} attempts ({error})")
