"""A local OpenAI-compatible HTTP server for tests and benchmarks: the network edge.

The real `openai` client talks to it over real HTTP. A responder function decides,
per request, the answer text, a status code, a delay, or a broken body, so tests
can inject latency, 429s, 500s, timeouts and garbage.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Response:
    text: str = '{"action_type": "click", "element": "OK"}'
    status: int = 200
    delay: float = 0.0
    raw_body: bytes | None = None  # sent as is (garbage)
    headers: dict = field(default_factory=dict)
    prompt_tokens: int = 1000
    completion_tokens: int = 20


def user_text(body: dict) -> str:
    """All text parts of the request's messages, to decide an answer by content."""
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [c.get("text", "") for c in content if isinstance(c, dict)]
    return "\n".join(parts)


class FakeOpenAI:
    def __init__(self, responder: Callable[[dict, int], Response] | None = None, models: list[str] | None = None):
        self.responder = responder or (lambda body, n: Response())
        self.models = models  # what GET /models lists; None: no such endpoint (404), as many local servers
        self.requests: list[dict] = []
        self.auth_headers: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                if server.models is None or not self.path.rstrip("/").endswith("/models"):
                    payload, status = b'{"error": {"message": "not found"}}', 404
                else:
                    payload, status = json.dumps({"object": "list", "data": [
                        {"id": name, "object": "model", "created": 0, "owned_by": "test"}
                        for name in server.models]}).encode(), 200
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    index = len(server.requests)
                    server.requests.append(body)
                    server.auth_headers.append(self.headers.get("authorization", ""))
                response = server.responder(body, index)
                if response.delay:
                    time.sleep(response.delay)
                if response.raw_body is not None:
                    payload = response.raw_body
                elif response.status == 200:
                    payload = json.dumps({
                        "id": f"chatcmpl-{index}", "object": "chat.completion", "created": int(time.time()),
                        "model": body.get("model", "test"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": response.text}}],
                        "usage": {"prompt_tokens": response.prompt_tokens,
                                  "completion_tokens": response.completion_tokens,
                                  "total_tokens": response.prompt_tokens + response.completion_tokens},
                    }).encode()
                else:
                    payload = json.dumps({"error": {"message": f"injected {response.status}",
                                                    "type": "test", "code": response.status}}).encode()
                try:
                    self.send_response(response.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for key, value in response.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # the default backlog of 5 refuses bursts of concurrent clients

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextlib.contextmanager
def fixed_server_process(latency: float, text: str | None = None):
    """This server in its own process (as a real one would be: no shared GIL), answering every request
    with `text` after `latency` seconds; yields its base URL (benchmarks)."""
    cmd = [sys.executable, __file__, "--latency", str(latency)] + (["--text", text] if text is not None else [])
    server = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield server.stdout.readline().strip()
    finally:
        server.stdin.close()
        server.wait(timeout=10)


async def serve_fixed(latency: float, text: str, ready) -> None:
    """A lean asyncio server for benchmarks: one coroutine per connection, keep-alive, a fixed
    answer after a fixed delay, so the measured overhead is the client's, not the server's."""
    import asyncio

    body = json.dumps({"id": "bench", "object": "chat.completion", "created": 0, "model": "bench",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}],
                       "usage": {"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020}}).encode()
    head = (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
            + str(len(body)).encode() + b"\r\n\r\n")

    async def handle(reader, writer):
        try:
            while True:
                headers = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in headers.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                await asyncio.sleep(latency)
                writer.write(head + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=512)
    ready(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1")
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    # Standalone, for benchmarks that must not share a process (and a GIL) with the client.
    import argparse
    import asyncio
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--text", default='{"action_type": "click", "point": [1, 1]}')
    args = parser.parse_args()
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    asyncio.run(serve_fixed(args.latency, args.text, lambda url: print(url, flush=True)))
