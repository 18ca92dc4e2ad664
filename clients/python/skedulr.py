"""skedulr -- a Python client for the Skedulr HTTP API (one module, standard library only).

Copy this file next to your code (or put clients/python on PYTHONPATH); Python 3.8+.

    from skedulr import Client, SkedulrError

    client = Client("http://127.0.0.1:8080", api_key=None)  # or SKEDULR_URL / SKEDULR_API_KEY
    task = client.submit({"type": "send_email", "payload": {"to": "a@b.c"}, "maxRetries": 3})
    done = client.wait(task["id"], timeout=30)   # polls until succeeded, dead, cancelled or expired
    print(done["status"], done["result"])

Every method returns the API's JSON answer as dicts and lists (docs/CONTRACT.md names
every field). A refused or failed request raises SkedulrError carrying the API's `code`
(`not_found`, `conflict`, `invalid_request`, ...), its message, the HTTP status and any
`issues`; a server that cannot be reached raises SkedulrError with code "unreachable" and
status None. `verify_signature` checks the signature of requests that `http` tasks send.
"""

import hashlib
import hmac
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Client", "SkedulrError", "WaitTimeout", "verify_signature", "FINAL_STATUSES"]

DEFAULT_URL = "http://127.0.0.1:8080"
#: A task in one of these statuses will not change again (unless resubmitted).
FINAL_STATUSES = frozenset(["succeeded", "dead", "cancelled", "expired"])
#: How far a signature's timestamp may be from now: the server's replay window.
SIGNATURE_TOLERANCE_MS = 300_000


class SkedulrError(Exception):
    """An error answer of the API (`{"error": {code, message, issues}}`), or no answer.

    `status` is the HTTP status (None when the server could not be reached), `code` the
    API's error code, `issues` a list of `{"path", "message"}` for `invalid_request`, and
    `retry_after` the seconds a 429 or 503 asks to wait (None otherwise).
    """

    def __init__(self, status, code, message, issues=None, retry_after=None):
        super().__init__(f"{status or 'no answer'} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.issues = issues or []
        self.retry_after = retry_after


class WaitTimeout(TimeoutError):
    """`Client.wait` ran out of time; `task` is the last record read (not final)."""

    def __init__(self, task, timeout):
        super().__init__(f"task {task['id']} is still {task['status']} after {timeout} s")
        self.task = task


class Client:
    """A client of one Skedulr node (a worker or an API-only node; any will do).

    `url` is the node's root (`http://host:8080`; a trailing `/skedulr` or `/skedulr/api`
    is accepted), default SKEDULR_URL or http://127.0.0.1:8080. `api_key` is the bearer
    credential (SKEDULR_TOKEN's value or a named key), default SKEDULR_API_KEY; needed only
    when the server has credentials. `timeout` bounds each request, in seconds.
    """

    def __init__(self, url=None, api_key=None, timeout=30.0):
        root = (url or os.environ.get("SKEDULR_URL") or DEFAULT_URL).rstrip("/")
        for suffix in ("/skedulr/api", "/skedulr"):
            if root.endswith(suffix):
                root = root[: -len(suffix)]
                break
        if not root.startswith(("http://", "https://")):
            raise ValueError(f"expected an http(s) URL, got {root!r}")
        self.base = root + "/skedulr/api"
        self.api_key = api_key if api_key is not None else os.environ.get("SKEDULR_API_KEY")
        self.timeout = timeout

    # -- tasks ---------------------------------------------------------------------------

    def submit(self, spec):
        """Submits one task spec; answers `{id, status}` (a schedule: `nextRunAt` too)."""
        return self._request("POST", "/tasks", spec)

    def batch(self, specs):
        """Submits up to 1000 specs at once, all or nothing; answers `{tasks: [...]}`."""
        return self._request("POST", "/tasks/batch", list(specs))

    def get(self, task_id):
        """The task's record (status, attempt, result, error, times ...)."""
        return self._request("GET", "/tasks/" + _quote(task_id))

    def wait(self, task_id, timeout=60.0, interval=0.05):
        """Polls until the task is succeeded, dead, cancelled or expired, and returns its record.

        Raises WaitTimeout (a TimeoutError) when it is still unfinished after `timeout`
        seconds. The pause between reads starts at `interval` and doubles up to 1 s.
        """
        deadline = time.monotonic() + timeout
        while True:
            task = self.get(task_id)
            if task["status"] in FINAL_STATUSES:
                return task
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaitTimeout(task, timeout)
            time.sleep(min(interval, left))
            interval = min(interval * 2, 1.0)

    def cancel(self, task_id, reason=None):
        """Cancels a task (a running one is aborted); answers `{id, status: "cancelled"}`."""
        body = {} if reason is None else {"reason": reason}
        return self._request("POST", "/tasks/" + _quote(task_id) + "/cancel", body)

    def resubmit(self, task_id):
        """Queues a dead, cancelled or expired task again under its id; answers `{id, status}`."""
        return self._request("POST", "/tasks/" + _quote(task_id) + "/resubmit")

    def list(self, status=None, type=None, pool=None, q=None, limit=None, cursor=None):
        """One page of tasks, newest first: `{tasks: [...], next: cursor or None}`.

        `status` is one status or a list of them; pass `next` back as `cursor` for the
        next page.
        """
        if isinstance(status, (list, tuple, set, frozenset)):
            status = ",".join(status)
        params = {"status": status, "type": type, "pool": pool, "q": q, "limit": limit,
                  "cursor": cursor}
        query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
        return self._request("GET", "/tasks" + ("?" + query if query else ""))

    # -- the rest of the API, for completeness -------------------------------------------

    def schedules(self):
        """Recurring and cron schedules: `{schedules: [...]}`."""
        return self._request("GET", "/schedules")

    def stats(self):
        """Counts by status, pools, totals and durations."""
        return self._request("GET", "/stats")

    def pause(self, pool=None):
        """Stops every worker claiming from `pool` (all pools when None); role admin."""
        return self._request("POST", "/pause", {} if pool is None else {"pool": pool})

    def resume(self, pool=None):
        """Lets workers claim from `pool` again (all pools when None); role admin."""
        return self._request("POST", "/resume", {} if pool is None else {"pool": pool})

    # -- transport -----------------------------------------------------------------------

    def _request(self, method, path, body=None):
        url = self.base + path
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.api_key:
            headers["Authorization"] = "Bearer " + self.api_key
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise _answer_error(error) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise SkedulrError(None, "unreachable", f"cannot reach {self.base}: {reason}") from None


def _quote(task_id):
    return urllib.parse.quote(str(task_id), safe="")


def _answer_error(error):
    """The API's error body as a SkedulrError; a body that is not one still says the status."""
    raw = error.read()
    retry = error.headers.get("Retry-After") if error.headers else None
    try:
        detail = json.loads(raw)["error"]
        code, message = detail["code"], detail["message"]
        issues = detail.get("issues") or []
    except (ValueError, KeyError, TypeError):
        code, message, issues = f"http_{error.code}", raw.decode("utf-8", "replace")[:200], []
    retry_after = int(retry) if retry and retry.isdigit() else None
    return SkedulrError(error.code, code, message, issues, retry_after)


def verify_signature(key, timestamp, body, signature, tolerance_ms=SIGNATURE_TOLERANCE_MS,
                     now_ms=None):
    """True when an `http` task's request is signed with `key` and is recent.

    Pass the request's `Skedulr-Timestamp` and `Skedulr-Signature` headers and its raw body
    (bytes, exactly as received: parse the JSON after verifying). The signature is
    `v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`; a timestamp more than
    `tolerance_ms` (5 minutes) from now is refused, so a captured request cannot be
    replayed later. `key` and `body` may be str or bytes.
    """
    if isinstance(key, str):
        key = key.encode("utf-8")
    if isinstance(body, str):
        body = body.encode("utf-8")
    timestamp = str(timestamp)
    # Digits only, as the sender writes it: the MAC covers the header's exact text.
    if not (timestamp.isascii() and timestamp.isdigit()):
        return False
    now = time.time() * 1000 if now_ms is None else now_ms
    if abs(now - int(timestamp)) > tolerance_ms:
        return False
    mac = hmac.new(key, timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(("v1=" + mac).encode(), str(signature or "").encode("utf-8"))
