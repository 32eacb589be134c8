"""Uploads and downloads against a portal for SECONDS with WORKERS threads, as field clients
do: retrying what fails, and checking every byte.

    python3 retrying_client.py URL TOKEN PACKAGE SECONDS WORKERS OUT.json
    python3 retrying_client.py verify URL TOKEN OUT.json   # every item's data against its SHA-256

Each worker loops: publish PACKAGE in three parts (addItem multipart=true, addPart 1-3,
commit), then download a random item of the portal's whole and check the bytes hash to the item's ETag
(its recorded SHA-256). A call that fails
with a connection error, an HTTP 5xx or an API error 5xx (the portal's "cannot reach the
database") is retried after 0.25 s, up to 40 times; 4xx answers are failures. Writes counts,
retries and latency percentiles (ms) to OUT.json; exits 0.
"""

import hashlib
import http.client
import json
import random
import ssl
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

verifying = sys.argv[1] == "verify"
if verifying:
    url, token, out = sys.argv[2], sys.argv[3], sys.argv[4]
    package, seconds, workers = None, 0, 0
else:
    url, token, package, seconds, workers, out = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
data = open(package, "rb").read() if package else b""
cuts = [0, len(data) // 3, 2 * len(data) // 3, len(data)]
lock = threading.Lock()
stats = {"uploads": 0, "upload_failures": 0, "downloads": 0, "download_failures": 0, "corrupt": 0, "retries": 0,
         "upload_ms": [], "download_ms": [], "failures": []}


class Retry(Exception):
    pass


def call(method, path, body=None, headers=None):
    """One request with retries; returns (status, headers, body bytes)."""
    headers = dict(headers or {})
    headers["X-Esri-Authorization"] = "Bearer " + token
    for attempt in range(40):
        try:
            request = urllib.request.Request(url + path, data=body, method=method, headers=headers)
            with urllib.request.urlopen(request, context=context, timeout=60) as response:
                payload = response.read()
                if response.headers.get("Content-Type", "").startswith("application/json") and payload.startswith(b'{"error"'):
                    code = json.loads(payload)["error"].get("code", 0)
                    if code >= 500:
                        raise Retry(payload[:200])
                return response.status, response.headers, payload
        except urllib.error.HTTPError as e:
            if e.code < 500:
                return e.code, e.headers, e.read()
        except (Retry, OSError, urllib.error.URLError, ConnectionError, http.client.HTTPException):
            pass
        with lock:
            stats["retries"] += 1
        time.sleep(0.25)
    raise RuntimeError(f"{method} {path}: failed 40 times")


def form(fields, file=None):
    boundary = "----bench" + uuid.uuid4().hex
    parts = []
    for k, v in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
    if file is not None:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="part"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode() + file + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), {"Content-Type": "multipart/form-data; boundary=" + boundary}


def upload():
    started = time.time()
    body, headers = form({"f": "json", "multipart": "true", "fileName": "Bench.mmpk", "type": "Mobile Map Package", "title": "Uploaded"})
    status, _, payload = call("POST", "/sharing/rest/content/users/bench/addItem", body, headers)
    item = json.loads(payload).get("id")
    if not item:
        raise RuntimeError(f"addItem: {payload[:200]}")
    for n in range(3):
        body, headers = form({"f": "json", "partNum": str(n + 1)}, data[cuts[n]:cuts[n + 1]])
        status, _, payload = call("POST", f"/sharing/rest/content/users/bench/items/{item}/addPart", body, headers)
        if not json.loads(payload).get("success"):
            raise RuntimeError(f"addPart {n + 1}: {payload[:200]}")
    body, headers = form({"f": "json"})
    status, _, payload = call("POST", f"/sharing/rest/content/users/bench/items/{item}/commit", body, headers)
    if not json.loads(payload).get("success"):
        raise RuntimeError(f"commit: {payload[:200]}")
    return item, (time.time() - started) * 1000


def download(item):
    """The item's data whole; whether it hashes to its ETag (the recorded SHA-256)."""
    started = time.time()
    status, headers, payload = call("GET", f"/sharing/rest/content/items/{item}/data")
    if status != 200:
        raise RuntimeError(f"download {item}: HTTP {status}")
    if len(payload) != int(headers.get("Content-Length", -1)):
        raise RuntimeError(f"download {item}: {len(payload)} bytes of {headers.get('Content-Length')}")
    return hashlib.sha256(payload).hexdigest() == headers.get("ETag", "").strip('"'), (time.time() - started) * 1000


def worker(deadline, items):
    while time.time() < deadline:
        try:
            item, ms = upload()
            with lock:
                stats["uploads"] += 1
                stats["upload_ms"].append(ms)
                items.append(item)
        except Exception as e:  # noqa: BLE001 - every failure is counted and named
            with lock:
                stats["upload_failures"] += 1
                stats["failures"].append(str(e)[:300])
        try:
            ok, ms = download(random.choice(items))
            with lock:
                stats["downloads"] += 1
                stats["download_ms"].append(ms)
                if not ok:
                    stats["corrupt"] += 1
        except Exception as e:  # noqa: BLE001
            with lock:
                stats["download_failures"] += 1
                stats["failures"].append(str(e)[:300])


def percentile(values, p):
    if not values:
        return 0
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def every_item():
    """Every item the search shows (committed ones only), page by page."""
    found, start = [], 1
    while start > 0:
        _, _, payload = call("GET", f"/sharing/rest/search?f=json&num=100&start={start}&q=owner:bench")
        answer = json.loads(payload)
        found += [r["id"] for r in answer["results"]]
        start = answer.get("nextStart", -1)
    return found


if verifying:
    # After a run: every visible item's data is whole and hashes to its recorded SHA-256.
    report = {"items": 0, "corrupt": [], "unreadable": []}
    for item in every_item():
        report["items"] += 1
        try:
            ok, _ = download(item)
            if not ok:
                report["corrupt"].append(item)
        except Exception as e:  # noqa: BLE001
            report["unreadable"].append(f"{item}: {str(e)[:200]}")
    json.dump(report, open(out, "w"), indent=1)
    sys.exit(0)

items = every_item()
deadline = time.time() + seconds
threads = [threading.Thread(target=worker, args=(deadline, items)) for _ in range(workers)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for key in ("upload_ms", "download_ms"):
    v = stats.pop(key)
    stats[key.replace("_ms", "_p50_ms")] = round(percentile(v, 50), 1)
    stats[key.replace("_ms", "_p99_ms")] = round(percentile(v, 99), 1)
stats["failures"] = stats["failures"][:10]
json.dump(stats, open(out, "w"), indent=1)
