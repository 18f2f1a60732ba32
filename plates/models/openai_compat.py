"""Any OpenAI-compatible chat-completions API.

One backend covers OpenAI, vLLM and SGLang servers, Ollama, OpenRouter and the OpenAI-compatible endpoints of
Gemini and Anthropic. Images (PIL, sRGB 0-255) go as base64 PNG data URLs in ``image_url`` content parts (a
stored PNG as its own bytes, `plates.images.StoredPng`); few-shot examples go as earlier user/assistant messages.

Transport, not through the openai SDK (the largest part of the client's CPU per request; see chat_wire): each
body is written once per request (`plates.models.chat_wire`) and sent by a lean HTTP/1.1 client to a plain
``http://`` server, by httpx otherwise (`plates.models.http1.make_lanes`). The request is what the SDK sent:
``POST {base_url}/chat/completions`` with a Bearer key, ``extra_body`` merged into the body and
``extra_headers`` added to the headers.

Reliability, done here so that attempts are counted:
bounded concurrency; a per-request deadline; retries with exponential backoff and full jitter on 408, 409,
429, 5xx, timeouts, dropped connections and malformed replies, honouring ``Retry-After`` (seconds or an HTTP
date) and ``retry-after-ms`` (a 429's wait holds back every request's next attempt, since rate limits are
per account); a cap on attempts. A request that finally fails becomes ``Reply(text=None,
error=...)``. When requests keep failing the same way, :class:`BackendFailing` stops the run: at once on
401/403/404 (bad key, no permission, unknown model or wrong URL) or an unreachable server, and after
``fail_after`` finished requests in a row that failed with the same error. The failures of such a streak are
not yielded, so a rerun after fixing the cause asks them again.

Redirects: followed by default, as the SDK did (a 307/308 re-sends the whole POST to wherever the ``Location``
points, the key only to the same origin; a 301/302 turns it into a GET). With ``follow_redirects=False`` (the explorer's public
mode) none is followed: a 3xx answer stops at once with a message that carries neither the redirecting
server's body nor its ``Location``, so no other address is ever contacted or quoted.

The API key is read from an environment variable and never appears in errors, logs or reprs.

Sampling fields are sent, not assumed (``sampling_fields``: "openai" sends temperature only, "vllm" every field
vLLM would otherwise take from the model's file; plates.models.decoding). Each reply carries the settings sent
and what they left to the server (``Reply.settings``), and the model and ``system_fingerprint`` the server says
answered (``Reply.revision``).
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import queue
import random
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from plates import __version__
from plates.images import image_to_png_bytes
from plates.models.base import Backend, BackendFailing, Query, Reply
from plates.models.chat_wire import (
    EXTRA_HEADERS,
    HTTPStatusError,
    Malformed,
    encode_body,
    new_slot,
    parse_completion,
    png_base64,
)
from plates.models.decoding import SAMPLING_FIELDS, api_sampling
from plates.models.http1 import ConnectFailed, Dropped, make_lanes
from plates.secrets import redact
from plates.validation import check_int, check_number

RETRY_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
FATAL_STATUSES = frozenset({401, 403, 404})
TOKEN_PARAMS = ("max_tokens", "max_completion_tokens", None)
IMAGE_DETAILS = ("auto", "low", "high", None)
NO_KEY = "EMPTY"  # what local servers (vLLM, Ollama) accept when they need no key
OPENAI_URL = "https://api.openai.com/v1"  # base_url None
#: How a failed reply's error begins when no attempt answered within the timeout (a caller may tell it apart).
TIMEOUT_MESSAGE = "no reply within"


@dataclass(frozen=True)
class _Failure:
    """Why one attempt failed: a signature for streak detection, a short message, retry advice."""

    signature: str  # e.g. "HTTP 503", "timeout", "connection", "malformed reply"
    message: str
    retryable: bool
    fatal: bool = False
    retry_after: float | None = None  # seconds the server asked us to wait
    unreachable: bool = False  # could not connect at all


def parse_retry_after(headers: Any, *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (delta-seconds or an HTTP date); None if absent.

    A date in the past gives 0. Garbage gives None (the caller falls back to backoff).

    Parameters
    ----------
    headers : mapping
        The reply's headers.
    now : float, optional
        Seconds since the epoch (default: now).

    Returns
    -------
    float or None
        Seconds.
    """
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return max(float(value) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


class _Secret(str):
    """A string whose repr hides it."""

    def __repr__(self) -> str:
        return "'***'"


class OpenAIBackend(Backend):
    """Chat completions over the ``openai`` SDK with retries, bounded concurrency and fail-fast.

    Parameters
    ----------
    model : str
        The model as the server names it.
    base_url : str or None, optional
        ``http(s)://...``; None: OpenAI.
    api_key_env : str or None, optional
        The environment variable holding the key; None for a local server that needs none.
    concurrency : int, optional
        Requests in flight (>= 1).
    timeout : float, optional
        Seconds per attempt, whole request.
    max_attempts : int, optional
        Attempts per request (>= 1).
    backoff_base, backoff_max : float, optional
        Retry backoff, seconds (full jitter).
    max_retry_after : float, optional
        The longest ``Retry-After`` honoured, seconds; longer asks fail the request.
    fail_after : int, optional
        Finished requests failing the same way in a row before `BackendFailing` (0 disables).
    max_tokens : int or None, optional
        Overrides each query's token budget.
    temperature : float or None, optional
        Overrides each query's temperature.
    token_param : str or None, optional
        "max_tokens", "max_completion_tokens" (o-series / GPT-5), or None to send no budget.
    send_temperature : bool, optional
        Whether the temperature is sent.
    sampling_fields : str, optional
        "openai" or "vllm": which sampling fields are sent (`plates.models.decoding`).
    system : str or None, optional
        A system message.
    image_detail : str or None, optional
        OpenAI's image ``detail``.
    extra_body : dict, optional
        Provider options (e.g. ``{"top_k": 1}``); they win over ``sampling_fields``' values.
    extra_headers : dict of str to str, optional
        More request headers.
    seed : int or None, optional
        A seed to send.
    api_key : str or None, optional
        A key handed over directly (e.g. from one UI session) instead of an environment variable; never shown.
    follow_redirects : bool, optional
        False: a 3xx answer is a fatal error and no other address is contacted (see the module doc).

    Raises
    ------
    ValueError
        For an empty model, a base URL that is not http(s), an option out of its range or not among its
        allowed values (each message names it), an empty ``api_key``, or an ``api_key_env`` variable that is
        not set (or empty).
    """

    kind = "openai"
    sends_png = True

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        concurrency: int = 8,
        timeout: float = 60.0,
        max_attempts: int = 5,
        *,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_retry_after: float = 120.0,
        fail_after: int = 10,
        max_tokens: int | None = None,
        temperature: float | None = None,
        token_param: str | None = "max_tokens",
        send_temperature: bool = True,
        sampling_fields: str = "openai",
        system: str | None = None,
        image_detail: str | None = None,
        extra_body: dict[str, Any] | None = None,
        extra_headers: dict[str, str] | None = None,
        seed: int | None = None,
        api_key: str | None = None,
        follow_redirects: bool = True,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty model name, got {model!r}")
        if base_url is not None and not str(base_url).startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        for name, value, low in (("concurrency", concurrency, 1), ("max_attempts", max_attempts, 1),
                                 ("fail_after", fail_after, 0)):
            check_int(name, value, low)
        for name, value in (("timeout", timeout), ("backoff_base", backoff_base), ("backoff_max", backoff_max),
                            ("max_retry_after", max_retry_after)):
            check_number(name, value, 0, open=True, note=" (seconds)")
        if token_param not in TOKEN_PARAMS:
            raise ValueError(f"token_param {token_param!r} is not allowed; allowed: {TOKEN_PARAMS}")
        if sampling_fields not in SAMPLING_FIELDS:
            raise ValueError(f"sampling_fields {sampling_fields!r} is not allowed; allowed: "
                             f"{', '.join(SAMPLING_FIELDS)}")
        if image_detail not in IMAGE_DETAILS:
            raise ValueError(f"image_detail {image_detail!r} is not allowed; allowed: {IMAGE_DETAILS}")
        if not isinstance(follow_redirects, bool):
            raise ValueError(f"follow_redirects must be True or False, got {follow_redirects!r}")
        check_int("max_tokens", max_tokens, 1, none_ok=True)
        if api_key is not None:  # handed over directly (e.g. one UI session's key); wins over api_key_env
            if not isinstance(api_key, str) or not api_key.strip():
                raise ValueError("api_key, when given, must be a non-empty string")
            key, api_key_env = api_key.strip(), None
        elif api_key_env is None:
            key = NO_KEY
        else:
            # surrounding whitespace is never part of a key (a trailing newline from a key file): sent as is,
            # it makes an illegal header whose error text would carry the key in an escaped form
            key = os.environ.get(api_key_env, "").strip()
            if not key:
                raise ValueError(
                    f"the environment variable {api_key_env} is not set (or empty): export your API key in it, "
                    "choose another variable with api_key_env / --api-key-env, or use api_key_env=None for a "
                    "local server that needs no key"
                )
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self._key = _Secret(key)
        self.concurrency, self.timeout, self.max_attempts = concurrency, float(timeout), max_attempts
        self.backoff_base, self.backoff_max = float(backoff_base), float(backoff_max)
        self.max_retry_after, self.fail_after = float(max_retry_after), fail_after
        self.max_tokens, self.temperature = max_tokens, temperature
        self.token_param, self.send_temperature = token_param, send_temperature
        self.sampling_fields = sampling_fields
        self.system, self.image_detail, self.seed = system, image_detail, seed
        self.extra_body, self.extra_headers = dict(extra_body or {}), dict(extra_headers or {})
        self.follow_redirects = follow_redirects

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.model!r}, base_url={self.base_url!r}, api_key_env={self.api_key_env!r})"

    # ---- the sync face: a generator fed by an event loop in a worker thread ------------------------------
    def ask(self, queries: Sequence[Query]) -> Iterator[tuple[int, Reply]]:
        """Yield ``(index, Reply)`` as requests complete; raises :class:`BackendFailing` (see module doc).

        Safe to call from inside a running event loop (e.g. Gradio): the requests run on a private loop in a
        worker thread. Closing the generator early cancels the requests still in flight.

        Parameters
        ----------
        queries : sequence of Query
            The questions.

        Yields
        ------
        (int, Reply)
            Index into ``queries`` and its reply, as they complete.
        """
        queries = list(queries)
        for i, query in enumerate(queries):
            if not isinstance(query, Query):
                raise ValueError(f"queries[{i}] must be a Query, got {type(query).__name__}")
        if not queries:
            return
        run = _Run(self, queries)
        thread = threading.Thread(target=run.thread_main, name="plates-openai", daemon=True)
        thread.start()
        try:
            while True:
                try:
                    item = run.out.get(timeout=0.5)
                except queue.Empty:
                    continue
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            run.cancel()
            thread.join(timeout=10)

    # ---- one request -------------------------------------------------------------------------------------
    def _messages(self, query: Query, slot: str) -> list[dict[str, Any]]:
        """The request's messages, every image URL the placeholder ``slot`` (`plates.models.chat_wire`)."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system}] if self.system else []
        for turn in query.turns:
            if turn.role == "assistant" or not turn.images:
                messages.append({"role": turn.role, "content": turn.text})
                continue
            parts: list[dict[str, Any]] = []
            for _ in turn.images:  # one slot per image, filled in order by chat_wire.encode_body
                image_url: dict[str, Any] = {"url": slot}
                if self.image_detail:
                    image_url["detail"] = self.image_detail
                parts.append({"type": "image_url", "image_url": image_url})
            parts.append({"type": "text", "text": turn.text})
            messages.append({"role": "user", "content": parts})
        return messages

    def _sampling(self, query: Query) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
        temperature = (self.temperature if self.temperature is not None else query.temperature
                       ) if self.send_temperature else None
        return api_sampling(self.sampling_fields, temperature=temperature, token_param=self.token_param,
                            max_tokens=self.max_tokens if self.max_tokens is not None else query.max_tokens,
                            seed=self.seed, extra_body=self.extra_body)

    def _request_options(self, query: Query) -> dict[str, Any]:
        top, extra, _ = self._sampling(query)
        options: dict[str, Any] = {"model": self.model, **top}
        if extra:
            options["extra_body"] = extra
        if self.extra_headers:
            options["extra_headers"] = self.extra_headers
        return options

    def settings_for(self, query: Query) -> dict[str, Any]:
        """What this backend sends that decides ``query``'s answer (stored per row as ``generation_json``):
        the sampling fields, token budget and seed as sent, the system message and image detail, and
        ``left_to_server``: the decisive fields the server chooses itself.

        Parameters
        ----------
        query : Query
            The question (its turns, images and sampling).

        Returns
        -------
        dict
            The settings.
        """
        top, extra, left = self._sampling(query)
        return {**top, **extra, "sampling_fields": self.sampling_fields, "system": self.system,
                "image_detail": self.image_detail, "left_to_server": left}

    def _redact(self, text: str) -> str:
        """``text`` (a server's or a library's error message) with the API key replaced by ``***`` in every
        spelling (plates.secrets). The runner redacts stored errors too; this keeps the key out of anything the
        backend says."""
        return redact(text, [self._key] if self._key != NO_KEY else [])

    def _classify(self, exc: BaseException) -> _Failure:
        if isinstance(exc, asyncio.TimeoutError | httpx.TimeoutException):
            return _Failure("timeout", f"{TIMEOUT_MESSAGE} {self.timeout:g} s", retryable=True)
        if isinstance(exc, HTTPStatusError) and 300 <= exc.status < 400:
            # only reached with follow_redirects=False: say so, and quote neither the body nor the Location
            status = exc.status
            return _Failure(f"HTTP {status}", f"HTTP {status}: the endpoint answered with a redirect, which "
                            "is not followed here (the request went nowhere else); allowed: the final URL as "
                            "the base URL", retryable=False, fatal=True)
        if isinstance(exc, HTTPStatusError):
            status = exc.status
            message = f"HTTP {status}: {_short(self._redact(exc.detail))}"
            if status in FATAL_STATUSES:
                hint = {401: f"check the key in ${self.api_key_env}" if self.api_key_env else
                         "check the API key" if self._key != NO_KEY else "the server wants an API key",
                        403: "the key has no access to this model or endpoint",
                        404: f"check the model name {self.model!r} and the base URL"}[status]
                return _Failure(f"HTTP {status}", f"{message} ({hint})", retryable=False, fatal=True)
            return _Failure(f"HTTP {status}", message, retryable=status in RETRY_STATUSES,
                            retry_after=parse_retry_after(exc.headers))
        if isinstance(exc, httpx.TransportError | httpx.TooManyRedirects | ConnectFailed | Dropped):
            unreachable = isinstance(exc, httpx.ConnectError | ConnectFailed)  # nothing answered at all
            what = "cannot connect" if unreachable else "connection dropped"
            detail = _short(self._redact(str(exc) or type(exc).__name__))
            return _Failure("connection", f"{what}: {detail}", retryable=True, unreachable=unreachable)
        if isinstance(exc, ValueError | Malformed):
            return _Failure("malformed reply", f"malformed reply: {_short(self._redact(str(exc)))}", retryable=True)
        text = str(exc)
        if self._redact(text) != text:  # an error of a kind not classified here still never carries the key
            raise RuntimeError(f"{type(exc).__name__}: {self._redact(text)}") from None
        raise exc

    def _backoff(self, attempt: int) -> float:
        """Full jitter: uniform(0, min(backoff_max, backoff_base * 2**(attempt-1))) seconds."""
        return random.uniform(0.0, min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1)))


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_DONE = object()


class _Run:
    """One ``ask`` call: a private event loop in a worker thread pushing results onto ``out``."""

    def __init__(self, backend: OpenAIBackend, queries: list[Query]) -> None:
        self.backend, self.queries = backend, queries
        self.out: queue.Queue[Any] = queue.Queue()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task[None] | None = None
        self.cancelled = threading.Event()
        self.streak: list[tuple[int, Reply]] = []  # finished failures in a row, held back
        self.streak_signature: str | None = None
        self.any_success = False
        self.paused_until = 0.0  # time.monotonic(): a 429's Retry-After holds back every new attempt

    def thread_main(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which re-raises it
            if not isinstance(exc, asyncio.CancelledError):
                self.out.put(exc)
        finally:
            self.out.put(_DONE)

    def cancel(self) -> None:
        self.cancelled.set()
        loop, task = self.loop, self.task
        if loop is not None and task is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed in between
                pass

    async def _main(self) -> None:
        b = self.backend
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        if self.cancelled.is_set():
            return
        # Everything that does not depend on the request is made once here: the transport (connections,
        # headers; plates.models.http1.lanes) and the slot token image URLs are spliced into. A request takes
        # a lane for its whole life (retries included), which bounds the requests in flight.
        headers = {"Authorization": f"Bearer {b._key}", "Content-Type": "application/json",
                   "Accept": "application/json", "User-Agent": f"plates/{__version__}"}
        tokens, clients, self.redirects = make_lanes((b.base_url or OPENAI_URL).rstrip("/"), headers, b.timeout,
                                                     b.concurrency, follow_redirects=b.follow_redirects)
        lanes: asyncio.Queue[Any] = asyncio.Queue()
        for lane in tokens:
            lanes.put_nowait(lane)
        self.slot = new_slot()
        seen: dict[int, int] = {}
        for query in self.queries:
            for image in query.images:
                seen[id(image)] = seen.get(id(image), 0) + 1
        # Images used more than once (few-shot examples) are encoded once and kept; the rest are dropped
        # with their request, so a long run does not hold every plate's PNG in memory.
        self.shared = {key for key, count in seen.items() if count > 1}
        self.shared_urls: dict[int, bytes] = {}
        tasks = [asyncio.create_task(self._one(lanes, i, q)) for i, q in enumerate(self.queries)]
        try:
            for next_done in asyncio.as_completed(tasks):
                index, reply, failure = await next_done
                self._finish(index, reply, failure)
            for held in self.streak:  # a trailing streak shorter than fail_after: ordinary errors
                self.out.put(held)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for client in clients:
                await client.aclose()

    def _finish(self, index: int, reply: Reply, failure: _Failure | None) -> None:
        b = self.backend
        if failure is None:
            self.any_success = True
            for held in self.streak:
                self.out.put(held)
            self.streak, self.streak_signature = [], None
            self.out.put((index, reply))
            return
        where = f"{b.base_url or 'the OpenAI API'} (model {b.model!r})"
        if failure.fatal:
            raise BackendFailing(f"stopping: {where} refused the request: {failure.message}")
        if failure.unreachable and not self.any_success:
            raise BackendFailing(f"stopping: {where} is unreachable after {reply.attempts} attempts: "
                                 f"{failure.message}")
        if b.fail_after == 0:
            self.out.put((index, reply))
            return
        if failure.signature != self.streak_signature:
            for held in self.streak:
                self.out.put(held)
            self.streak, self.streak_signature = [], failure.signature
        self.streak.append((index, reply))
        if len(self.streak) >= b.fail_after:
            raise BackendFailing(
                f"stopping: the last {len(self.streak)} requests to {where} all failed the same way "
                f"({failure.signature}) after {reply.attempts} attempts each: {failure.message}"
            )

    async def _body(self, query: Query, options: dict[str, Any]) -> bytes:
        """The request body, written once for all attempts; a stored PNG goes as its bytes, any other image is
        encoded off the loop (`plates.images.image_to_png_bytes`)."""
        urls = []
        for image in query.images:
            key = id(image)
            url = self.shared_urls.get(key)
            if url is None:
                stored = getattr(image, "stored", None)
                png = stored if stored is not None else await asyncio.to_thread(image_to_png_bytes, image)
                url = png_base64(png)
                if key in self.shared:
                    self.shared_urls[key] = url
            urls.append(url)
        return encode_body(self.backend._messages(query, self.slot), options, urls, self.slot)

    async def _one(self, lanes: asyncio.Queue[Any], index: int,
                   query: Query) -> tuple[int, Reply, _Failure | None]:
        b = self.backend
        attempt, failure, latency = 0, None, 0.0
        # A request holds its lane through its retries and their waits: a failing or rate-limiting server
        # then sees at most `concurrency` requests at a time, and a stop comes before the queue is spent.
        client = await lanes.get()
        try:
            options = b._request_options(query)
            body = await self._body(query, options)
            extra_headers = options.get(EXTRA_HEADERS) or None
            while attempt < b.max_attempts:
                attempt += 1
                while (pause := self.paused_until - time.monotonic()) > 0:  # the account is rate limited
                    await asyncio.sleep(pause)
                started = time.monotonic()
                try:
                    response = await asyncio.wait_for(client.post("chat/completions", body, extra_headers),
                                                      b.timeout)
                    if 300 <= response.status < 400 and self.redirects is not None:
                        response = await asyncio.wait_for(
                            self.redirects.post("chat/completions", body, extra_headers), b.timeout)
                    text, prompt_tokens, completion_tokens, revision = parse_completion(
                        response.status, response.headers, response.content)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # noqa: BLE001 - classified; unknown kinds re-raised there
                    latency = time.monotonic() - started
                    failure = b._classify(exc)
                else:
                    latency = time.monotonic() - started
                    return index, Reply(text, latency_s=latency, prompt_tokens=prompt_tokens,
                                        completion_tokens=completion_tokens, attempts=attempt,
                                        settings=b.settings_for(query), revision=revision), None
                if not failure.retryable or failure.fatal or attempt >= b.max_attempts:
                    break
                if failure.retry_after is not None:
                    if failure.signature == "HTTP 429" and failure.retry_after <= b.max_retry_after:
                        self.paused_until = max(self.paused_until, time.monotonic() + failure.retry_after)
                    if failure.retry_after > b.max_retry_after:
                        failure = _Failure(failure.signature, f"{failure.message} (server asks to retry after "
                                           f"{failure.retry_after:.0f} s, more than max_retry_after="
                                           f"{b.max_retry_after:g} s)", retryable=False)
                        break
                    wait = failure.retry_after + random.uniform(0.0, 0.1 * failure.retry_after + 0.01)
                else:
                    wait = b._backoff(attempt)
                await asyncio.sleep(wait)
        finally:
            lanes.put_nowait(client)
        if failure is None:  # unreachable: max_attempts >= 1 is validated
            raise RuntimeError("no attempt was made")
        error = f"{failure.message} (after {attempt} attempt{'s' if attempt > 1 else ''})"
        return index, Reply(None, error=error, latency_s=latency, attempts=attempt), failure
