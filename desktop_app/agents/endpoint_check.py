"""Testing an OpenAI-compatible endpoint before relying on it: is it reachable, does it list the model, does
a tiny completion come back? One answer for every place that asks (an agent's profile, the LLM that writes
synthetic samples), as a result with a sentence a user can act on. The key never appears in it.

    report = check_endpoint(EndpointCheck("http://localhost:8000/v1", "qwen", api_key="..."))
    report.ok, report.message      # True, 'Connected in 0.4 s: qwen answered “OK”.'

Blocking (up to two requests of `timeout_s` each): the window runs it in a Task (ui/endpoint_tester.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_app.llm_retry import openai_client
from desktop_app.secrets import redact

TEST_TIMEOUT_S = 20.0  # the test waits at most this long per request, whatever the endpoint's own timeout
TEST_PROMPT = "This is a connection test. Reply with the single word: OK"
TEST_MAX_TOKENS = 16
MODELS_SHOWN = 8  # listed models named in a message


@dataclass
class EndpointCheck:
    """What to test. api_key "": none (local servers take any key), unless `key` is given to check_endpoint."""

    base_url: str
    model: str
    api_key: str = ""
    temperature: float = 0.0
    extra_body: dict = field(default_factory=dict)
    timeout_s: float = TEST_TIMEOUT_S


@dataclass(frozen=True)
class EndpointReport:
    ok: bool
    message: str
    models: tuple[str, ...] | None = None  # what the server lists; None when it lists nothing
    answer: str = ""  # the completion's text


def check_fields(base_url: str, model: str) -> None:
    """ValueError with what to enter when the fields cannot name an endpoint (no request is sent)."""
    if not base_url.strip().startswith(("http://", "https://")):
        raise ValueError("Enter the base URL, starting with http:// or https:// (usually ending in /v1).")
    if not model.strip():
        raise ValueError("Enter the model name.")


def check_endpoint(check: EndpointCheck, key: Callable[[], str] | None = None) -> EndpointReport:
    """Reachable? (the model list, or the completion when there is no list) The model listed? A tiny completion?
    `key()`: read the key now, off the UI thread (an OS keyring can be slow), when check.api_key is empty.
    Never raises: a failure is a report with ok False."""

    try:
        if not check.api_key and key is not None:
            check.api_key = key()
    except Exception as exc:  # a variable not set, no key in the keyring, no keyring at all
        return EndpointReport(False, _hidden(f"Could not read the API key: {exc}", check))
    client = openai_client(check.base_url, check.api_key or "not-needed", check.timeout_s)  # one try: a check
    try:
        try:
            models = _listed(client)
        except Exception as exc:  # not reachable, or the key refused
            return EndpointReport(False, describe_error(exc, check))
        started = time.perf_counter()
        try:
            response = client.chat.completions.create(
                model=check.model, messages=[{"role": "user", "content": TEST_PROMPT}],
                temperature=check.temperature, max_tokens=TEST_MAX_TOKENS, extra_body=check.extra_body or None)
        except Exception as exc:
            hint = f" The server lists: {_names(models)}." if models and check.model not in models else ""
            return EndpointReport(False, describe_error(exc, check) + hint, models)
        seconds = time.perf_counter() - started
    finally:
        client.close()
    choice = response.choices[0] if response.choices else None
    answer = " ".join(((choice.message.content or "") if choice and choice.message else "").split())
    shown = answer if len(answer) <= 120 else answer[:117] + "..."
    message = f"Connected in {seconds:.1f} s: {check.model} answered \u201c{shown or '(empty)'}\u201d."
    if models and check.model not in models:
        message += f" Note: the server does not list this model (it lists: {_names(models)})."
    return EndpointReport(True, _hidden(message, check), models, answer)


def _listed(client) -> tuple[str, ...] | None:
    """The models the server lists; None when it has no list (many local servers): the completion decides."""
    import openai

    try:
        return tuple(m.id for m in client.models.list())
    except (openai.APIConnectionError, openai.AuthenticationError, openai.PermissionDeniedError):
        raise  # APITimeoutError is an APIConnectionError: unreachable is unreachable
    except Exception:  # 404, 405, 501, a body that is no list: not a verdict on the endpoint
        return None


def _names(models: tuple[str, ...]) -> str:
    more = f" and {len(models) - MODELS_SHOWN} more" if len(models) > MODELS_SHOWN else ""
    return ", ".join(models[:MODELS_SHOWN]) + more


def _hidden(text: str, check: EndpointCheck | None) -> str:
    if check and check.api_key and len(check.api_key) >= 4:
        text = text.replace(check.api_key, "***")
    return redact(text)


def describe_error(exc: BaseException, check: EndpointCheck | None = None) -> str:
    """A sentence a user can act on; never contains the key."""
    import openai

    url = check.base_url if check else "the server"
    if isinstance(exc, openai.AuthenticationError):
        text = "The server refused the API key (401). Check the key, or where it is read from."
    elif isinstance(exc, openai.PermissionDeniedError):
        text = "The key has no access to this model or endpoint (403)."
    elif isinstance(exc, openai.NotFoundError):
        text = (f"Not found (404): check the base URL (it usually ends in /v1) and the model name "
                f"'{check.model if check else ''}'.")
    elif isinstance(exc, openai.RateLimitError):
        text = "The server was reached but is rate-limiting or out of quota (429). Try again later."
    elif isinstance(exc, openai.APITimeoutError):
        text = f"No answer from {url} within {check.timeout_s if check else TEST_TIMEOUT_S:.0f} s."
    elif isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        text = f"Could not connect to {url}" + (f": {cause}" if cause else ".")
    elif isinstance(exc, openai.APIStatusError):
        text = f"The server answered {exc.status_code}: {_api_message(exc)}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return _hidden(text, check)


def _api_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc)
