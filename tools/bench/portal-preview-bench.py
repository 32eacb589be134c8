"""The item page's live map preview (issue 34; figures in docs/PERFORMANCE.md, "Portal
pages"): the time from loading an item page in headless Chromium (Debian's, through
Playwright) until its preview is idle: MapLibre's first `idle` event, every tile in view
loaded and drawn, no more to come.

    .venv/bin/python tools/bench/portal-preview-bench.py MAPBOOK_BINARY WORK_FOLDER PACKAGE [RUNS]

Two setups, one after the other: one portal process on SQLite with the package on disk; then
three processes behind nginx on PostgreSQL and Swift's S3 (tools/portal/cluster.sh), where
the package is read from the bucket by ranged GETs. Each run is a new browser context
(nothing cached in the browser); the first run of a setup (nothing opened yet on the server)
is given apart from the RUNS that follow. Peer in the same run: `mapbook serve` on the same
package, the time to its map page's first idle map (the same MapLibre, the package on disk,
no sign-in or access checks).
"""
import json, os, re, subprocess, sys, time, urllib.request
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "web"))
from bench_common import BINARY, ENV, ROOT, WORK, percentile, run, start_portal  # noqa: E402
from browser import Server, launch, wait  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

PACKAGE = os.path.abspath(sys.argv[3])
RUNS = int(sys.argv[4]) if len(sys.argv) > 4 else 10
PASSWORD = "bench-password-1"


def publish():
    """The package published as alice (signed in last) and shared with everyone; its item id."""
    return json.loads(run(BINARY, "portal", "publish", PACKAGE, "--share", "public", "--json"))["itemId"]


def time_to_idle(browser, url, predicate):
    """Seconds from navigation until `predicate` holds in a fresh context."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, ignore_https_errors=True)
    page = context.new_page()
    started = time.perf_counter()
    page.goto(url)
    if not wait(page, predicate, 60):
        raise SystemExit(f"portal-preview: {url} never became idle")
    elapsed = time.perf_counter() - started
    context.close()
    return elapsed


def measure(browser, label, url, predicate):
    first = time_to_idle(browser, url, predicate)
    rest = [time_to_idle(browser, url, predicate) for _ in range(RUNS)]
    print(f"| {label} | {first * 1000:.0f} ms | {percentile(rest, 50) * 1000:.0f} ms | {percentile(rest, 95) * 1000:.0f} ms | {max(rest) * 1000:.0f} ms |", flush=True)


PREVIEW_IDLE = "() => document.getElementById('preview')?.dataset.state === 'idle'"
print(f"portal-preview: {os.path.basename(PACKAGE)}, {RUNS} runs after the first, 1280 x 800", flush=True)
print("| setup | first | median | p95 | worst |\n|---|---|---|---|---|", flush=True)
with sync_playwright() as p:
    browser = launch(p)

    # One process, SQLite, the package on disk.
    server, origin, data = start_portal(PASSWORD)
    try:
        item = publish()
        measure(browser, "one process, SQLite + disk", f"{origin}/home/item.html?id={item}", PREVIEW_IDLE)
    finally:
        server.terminate()
        server.wait()

    # Three processes behind nginx, PostgreSQL + Swift's S3.
    cluster = os.path.join(WORK, "cluster")
    script = os.path.join(ROOT, "tools/portal/cluster.sh")
    try:
        url = subprocess.run([script, "up", cluster, "3"], check=True, capture_output=True, text=True,
                             env=dict(ENV, MAPBOOK=BINARY, PORTAL_STOP_AFTER="1800")).stdout.strip().splitlines()[-1]
        settings = dict(re.findall(r"(\w+)=(\S+)", open(os.path.join(cluster, "env")).read()))
        run(BINARY, "portal", "user", "add", "alice", "--data", os.path.join(cluster, "admin"), "--store", settings["PORTAL_STORE"],
            "--admin", "--password-stdin", input=PASSWORD + "\n")
        ca = os.path.join(cluster, "p1/tls/certificate.pem")
        run(BINARY, "portal", "signin", url, "--user", "alice", "--password-stdin", "--ca-cert", ca, input=PASSWORD + "\n")
        item = publish()
        measure(browser, "three processes behind nginx, PostgreSQL + S3 (ranged reads)", f"{url}/home/item.html?id={item}", PREVIEW_IDLE)
    finally:
        subprocess.run([script, "down", cluster], capture_output=True)

    # Peer: mapbook serve, the same package.
    serving = Server(BINARY, ENV, PACKAGE)
    try:
        key = json.loads(urllib.request.urlopen(serving.origin + "/api/packages").read())[0]["key"]
        measure(browser, "peer: mapbook serve, the map page", f"{serving.origin}/packages/{key}/maps/1/",
                "() => Boolean(window.mapbook && window.mapbook.ready && window.mapbook.idle)")
    finally:
        serving.stop()
    browser.close()
