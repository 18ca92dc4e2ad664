"""Tests of skedulr.py: verify_signature on its own, and every Client method against a live
worker (test/e2e/python-client.test.ts starts one and runs this file with python3).

    SKEDULR_URL=http://127.0.0.1:8080 SKEDULR_API_KEY=<token> \\
    SKEDULR_TEST_SIGNING_KEY=<the worker's SKEDULR_SIGNING_KEY> python3 -m unittest -v test_skedulr

The worker must run the default jobs module (jobs.ts: echo, fail, sleep), have a credential
(SKEDULR_TOKEN), sign `http` tasks, and allow them to call 127.0.0.1 (SKEDULR_HTTP_ALLOW).
Without SKEDULR_URL the live tests are skipped, and say so.
"""

import hashlib
import hmac
import http.server
import json
import os
import socket
import threading
import time
import unittest

from skedulr import Client, SkedulrError, WaitTimeout, verify_signature

LIVE = os.environ.get("SKEDULR_URL")
SIGNING_KEY = os.environ.get("SKEDULR_TEST_SIGNING_KEY", "")


def sign(key, timestamp, body):
    mac = hmac.new(key.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return "v1=" + mac


class VerifySignatureTest(unittest.TestCase):
    key = "receiver-secret"
    body = b'{"order":42}'

    def test_accepts_a_fresh_signature(self):
        ts = str(int(time.time() * 1000))
        self.assertTrue(verify_signature(self.key, ts, self.body, sign(self.key, ts, self.body)))
        # str body and bytes key are the same thing
        self.assertTrue(verify_signature(self.key.encode(), ts, self.body.decode(),
                                         sign(self.key, ts, self.body)))

    def test_refuses_tampering_and_other_keys(self):
        ts = str(int(time.time() * 1000))
        good = sign(self.key, ts, self.body)
        self.assertFalse(verify_signature(self.key, ts, b'{"order":43}', good))
        self.assertFalse(verify_signature("other-secret", ts, self.body, good))
        self.assertFalse(verify_signature(self.key, str(int(ts) + 1), self.body, good))
        self.assertFalse(verify_signature(self.key, ts, self.body, good[3:]))  # no v1=
        self.assertFalse(verify_signature(self.key, ts, self.body, ""))
        self.assertFalse(verify_signature(self.key, ts, self.body, None))

    def test_refuses_stale_future_and_malformed_timestamps(self):
        now = 1_700_000_000_000
        for ts, ok in [(now - 299_000, True), (now - 301_000, False), (now + 301_000, False)]:
            sig = sign(self.key, str(ts), self.body)
            self.assertEqual(verify_signature(self.key, str(ts), self.body, sig, now_ms=now), ok)
        for ts in ["", "abc", "-5", " 1700000000000", "1.5", "١٢٣"]:
            self.assertFalse(verify_signature(self.key, ts, self.body, sign(self.key, ts, self.body),
                                              now_ms=now), ts)


@unittest.skipUnless(LIVE, "SKEDULR_URL is not set: no live worker to test against")
class ClientTest(unittest.TestCase):
    def setUp(self):
        self.client = Client()  # SKEDULR_URL and SKEDULR_API_KEY from the environment

    def test_submit_wait_get(self):
        task = self.client.submit({"type": "echo", "payload": {"hello": "python"}})
        self.assertEqual(task["status"], "queued")
        done = self.client.wait(task["id"], timeout=10)
        self.assertEqual(done["status"], "succeeded")
        self.assertEqual(done["result"], {"hello": "python"})
        self.assertEqual(self.client.get(task["id"])["attempt"], 1)

    def test_batch(self):
        answer = self.client.batch([{"type": "echo", "payload": i} for i in range(3)])
        self.assertEqual(len(answer["tasks"]), 3)
        results = [self.client.wait(t["id"], timeout=10)["result"] for t in answer["tasks"]]
        self.assertEqual(results, [0, 1, 2])

    def test_dead_then_resubmit(self):
        task = self.client.submit({"type": "fail", "maxRetries": 1,
                                   "backoff": {"type": "fixed", "delay": "10ms"}})
        dead = self.client.wait(task["id"], timeout=10)
        self.assertEqual((dead["status"], dead["attempt"]), ("dead", 2))
        self.assertEqual(dead["error"]["message"], "failed on purpose")
        listed = self.client.list(status="dead", type="fail", limit=100)["tasks"]
        self.assertIn(task["id"], [t["id"] for t in listed])
        self.assertEqual(self.client.resubmit(task["id"]), {"id": task["id"], "status": "queued"})
        self.assertEqual(self.client.wait(task["id"], timeout=10)["status"], "dead")

    def test_cancel_a_running_task_and_the_409_after(self):
        task = self.client.submit({"type": "sleep", "payload": {"ms": 60_000}})
        answer = self.client.cancel(task["id"], reason="changed my mind")
        self.assertEqual(answer, {"id": task["id"], "status": "cancelled"})
        record = self.client.wait(task["id"], timeout=10)
        self.assertEqual((record["status"], record["cancelReason"]), ("cancelled", "changed my mind"))
        with self.assertRaises(SkedulrError) as caught:
            self.client.cancel(task["id"])
        self.assertEqual((caught.exception.status, caught.exception.code), (409, "conflict"))
        self.assertIn(task["id"], caught.exception.message)

    def test_wait_times_out_with_the_last_record(self):
        task = self.client.submit({"type": "sleep", "payload": {"ms": 30_000}})
        started = time.monotonic()
        with self.assertRaises(WaitTimeout) as caught:
            self.client.wait(task["id"], timeout=0.3)
        self.assertLess(time.monotonic() - started, 3)
        self.assertIn(caught.exception.task["status"], ("queued", "running"))
        self.assertIsInstance(caught.exception, TimeoutError)
        self.client.cancel(task["id"])

    def test_errors_carry_the_api_code(self):
        with self.assertRaises(SkedulrError) as caught:
            self.client.get("no-such-task")
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))
        with self.assertRaises(SkedulrError) as caught:
            self.client.submit({"type": "echo", "priority": "high"})
        e = caught.exception
        self.assertEqual((e.status, e.code), (400, "invalid_request"))
        self.assertEqual([i["path"] for i in e.issues], ["priority"])
        with self.assertRaises(SkedulrError) as caught:
            Client(api_key="").stats()  # "" sends no credential (None reads SKEDULR_API_KEY)
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "unauthorized"))

    def test_unreachable(self):
        with socket.socket() as s:  # a port nothing listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with self.assertRaises(SkedulrError) as caught:
            Client(f"http://127.0.0.1:{port}", timeout=5).stats()
        self.assertEqual((caught.exception.status, caught.exception.code), (None, "unreachable"))

    def test_list_filters_and_pages(self):
        marker = f"page-{time.time_ns()}"
        for i in range(3):
            self.client.submit({"type": "echo", "payload": {"marker": marker, "i": i}})
        first = self.client.list(q=marker, limit=2)
        self.assertEqual(len(first["tasks"]), 2)
        self.assertIsNotNone(first["next"])
        rest = self.client.list(q=marker, limit=2, cursor=first["next"])
        seen = [t["payload"]["i"] for t in first["tasks"] + rest["tasks"]]
        self.assertEqual(sorted(seen), [0, 1, 2])
        self.assertEqual(self.client.list(q=marker, status=["dead", "cancelled"])["tasks"], [])

    def test_url_forms_and_the_rest(self):
        base = self.client.base
        for url in (base, base[: -len("/api")], base[: -len("/skedulr/api")] + "/"):
            self.assertEqual(Client(url).base, base)
        stats = self.client.stats()
        self.assertIn("byStatus", stats)
        self.assertEqual(self.client.pause("critical"), {"pool": "critical", "paused": True})
        self.assertTrue(self.client.stats()["pools"]["critical"]["paused"])
        self.assertEqual(self.client.resume("critical"), {"pool": "critical", "paused": False})
        sched = self.client.submit({"type": "report", "cron": "0 9 * * 1-5",
                                    "timezone": "Europe/Berlin"})
        self.assertEqual(sched["status"], "active")
        ids = [s["id"] for s in self.client.schedules()["schedules"]]
        self.assertIn(sched["id"], ids)
        self.client.cancel(sched["id"])  # a schedule's id removes it (admin)
        ids = [s["id"] for s in self.client.schedules()["schedules"]]
        self.assertNotIn(sched["id"], ids)


@unittest.skipUnless(LIVE and SIGNING_KEY, "needs SKEDULR_URL and SKEDULR_TEST_SIGNING_KEY")
class SignedHttpTaskTest(unittest.TestCase):
    """A receiver written as the README says: verify, then parse."""

    def test_a_real_http_task_verifies(self):
        seen = []

        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"] or 0))
                ok = verify_signature(SIGNING_KEY, self.headers["Skedulr-Timestamp"], body,
                                      self.headers["Skedulr-Signature"])
                wrong = verify_signature(SIGNING_KEY + "x", self.headers["Skedulr-Timestamp"],
                                         body, self.headers["Skedulr-Signature"])
                seen.append((ok, wrong, json.loads(body), self.headers["Skedulr-Task-Id"]))
                self.send_response(200 if ok else 401)
                self.end_headers()

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            client = Client()
            url = f"http://127.0.0.1:{server.server_address[1]}/hook"
            task = client.submit({"type": "http", "payload": {"url": url, "body": {"order": 42}}})
            done = client.wait(task["id"], timeout=15)
            self.assertEqual(done["status"], "succeeded", done.get("error"))
            self.assertEqual(seen, [(True, False, {"order": 42}, task["id"])])
        finally:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    unittest.main()
