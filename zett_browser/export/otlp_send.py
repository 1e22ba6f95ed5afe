"""Provides ``--otlp-endpoint``: the spans sent over OTLP/HTTP (protobuf), batched and retried.

:class:`OtlpSender` is the span builder's sink: it gathers :data:`BATCH` spans, serialises
them into one ``ExportTraceServiceRequest`` (:func:`.otlp_proto.request_bytes`) and hands the
body to a thread of its own, which POSTs it with ``Content-Type: application/x-protobuf``
and the headers given (``--otlp-header``). At most :data:`QUEUED` bodies wait: a slow
collector slows the walk instead of filling memory.

A request that fails with 429, 502, 503 or 504, a timeout or a refused connection is tried
again after a growing pause (``Retry-After`` is followed, up to :data:`MAX_PAUSE`), at most
:data:`RETRIES` times; any other answer is an error at once. A collector that accepts only
part of a batch says so in its ``partial_success``: the rejected spans are counted and make
the export fail too. The first failure stops the export (one line for a person).
"""

from __future__ import annotations

import queue
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from .otlp_model import SpanData
from .otlp_proto import request_bytes
from .plan import ExportError

#: Spans per request (the OpenTelemetry SDK's default batch is 512).
BATCH = 512
#: Request bodies waiting for the sending thread.
QUEUED = 4
#: Tries after the first, and the pauses between them.
RETRIES = 5
FIRST_PAUSE = 0.5
MAX_PAUSE = 30.0
#: Seconds one request may take.
TIMEOUT = 30.0
RETRYABLE = frozenset({429, 502, 503, 504})
#: OTLP/HTTP's path for traces, added to an endpoint given without a path.
TRACES_PATH = "/v1/traces"

#: Sends one body; returns the response body (raises ``urllib.error.HTTPError`` / ``OSError``).
Post = Callable[[bytes], bytes]


def traces_url(endpoint: str) -> str:
    """The URL spans are POSTed to: ``endpoint`` as given, or with ``/v1/traces`` when it has no path.

    Raises:
        ExportError: not an http or https URL.
    """
    parts = urllib.parse.urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ExportError(f"--otlp-endpoint {endpoint!r} is not an http:// or https:// URL")
    if parts.path in ("", "/"):
        parts = parts._replace(path=TRACES_PATH)
    return urllib.parse.urlunsplit(parts)


def parse_header(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` (``--otlp-header``) as a header.

    Raises:
        ExportError: no ``=``, a name that is not an HTTP token, or a line break in the value.
    """
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    allowed = set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    if not sep or not name or not set(name) <= allowed:
        raise ExportError("--otlp-header takes NAME=VALUE, NAME a header name (letters, digits, -)")
    if any(ch in value for ch in "\r\n\x00"):
        raise ExportError(f"--otlp-header {name}: the value holds a line break")
    return name, value


def http_post(url: str, headers: dict[str, str], timeout: float = TIMEOUT) -> Post:
    """A :data:`Post` to ``url`` with ``headers`` (urllib: no dependency beyond the standard library)."""

    def post(body: bytes) -> bytes:
        request = urllib.request.Request(url, data=body, method="POST")
        for name, value in headers.items():
            request.add_header(name, value)
        request.add_header("Content-Type", "application/x-protobuf")
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data: bytes = response.read()
            return data

    return post


def _pause(error: Exception, attempt: int) -> float | None:
    """Seconds to wait before trying again after ``error`` (None: not worth another try)."""
    if isinstance(error, urllib.error.HTTPError):
        if error.code not in RETRYABLE:
            return None
        after = error.headers.get("Retry-After") if error.headers is not None else None
        if after is not None and after.strip().isdigit():
            return min(float(after.strip()), MAX_PAUSE)
    elif not isinstance(error, (OSError, TimeoutError)):
        return None
    return min(FIRST_PAUSE * float(2**attempt), MAX_PAUSE)


def _describe(error: Exception, url: str) -> str:
    if isinstance(error, urllib.error.HTTPError):
        try:
            detail = error.read()[:200].decode("utf-8", "replace").strip()
        except OSError:
            detail = ""
        return f"{url} answered {error.code} {error.reason}" + (f": {detail}" if detail else "")
    if isinstance(error, urllib.error.URLError):
        return f"cannot reach {url}: {error.reason}"
    return f"cannot send to {url}: {error}"


class OtlpSender:
    """Batches spans and sends them from a thread of its own (see the module docstring)."""

    def __init__(
        self, url: str, post: Post, *, batch: int = BATCH, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.url = url
        self.post = post
        self.batch_size = batch
        self.sleep = sleep
        self.batch: list[SpanData] = []
        self.sent = 0
        self.requests = 0
        self.retries = 0
        self.rejected = 0
        self.rejection = ""
        self.error: str | None = None
        self._queue: queue.Queue[tuple[bytes, int] | None] = queue.Queue(QUEUED)
        self._thread = threading.Thread(target=self._run, name="otlp-sender", daemon=True)
        self._thread.start()

    def __call__(self, span: SpanData) -> None:
        if self.error is not None:
            raise ExportError(self.error)
        self.batch.append(span)
        if len(self.batch) >= self.batch_size:
            self._flush()

    def _flush(self) -> None:
        if self.batch:
            body, count = request_bytes(self.batch), len(self.batch)
            self.batch = []
            self._queue.put((body, count))

    def finish(self) -> None:
        """Send what is left and wait for every request.

        Raises:
            ExportError: a request failed, or the collector rejected spans.
        """
        if self.error is None:
            self._flush()
        self.close()
        if self.error is not None:
            raise ExportError(self.error)
        if self.rejected:
            raise ExportError(f"{self.url} rejected {self.rejected:,} spans: {self.rejection or 'no reason given'}")

    def close(self) -> None:
        """Stop the thread (what is queued is still sent unless a request failed)."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            if self.error is None:  # after a failure, drain: the walk must never block on a full queue
                self._send(*item)

    def _send(self, body: bytes, count: int) -> None:
        attempt = 0
        while True:
            try:
                answer = self.post(body)
            except Exception as error:  # every failure is reported, none kills the thread
                pause = _pause(error, attempt)
                if pause is None or attempt >= RETRIES:
                    self.error = _describe(error, self.url)
                    return
                attempt += 1
                self.retries += 1
                self.sleep(pause)
                continue
            self.requests += 1
            self.sent += count
            self._partial(answer)
            return

    def _partial(self, answer: bytes) -> None:
        if not answer:
            return
        try:
            response = ExportTraceServiceResponse.FromString(answer)
        except Exception:  # a collector answering something else (JSON, text) accepted the batch
            return
        if response.partial_success.rejected_spans:
            self.rejected += response.partial_success.rejected_spans
            self.rejection = self.rejection or response.partial_success.error_message


__all__ = ["BATCH", "OtlpSender", "http_post", "parse_header", "traces_url"]
