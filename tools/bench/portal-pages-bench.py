"""The portal's item list and search pages under load (issue 34; figures in
docs/PERFORMANCE.md, "Portal pages"): 10,000 items (half public), 50 concurrent clients
(wrk, from Debian's packages) for 20 s per page, over HTTPS on loopback, one portal process
on SQLite; or, with `cluster`, three processes on PostgreSQL and S3 behind nginx
(tools/portal/cluster.sh).

    .venv/bin/python tools/bench/portal-pages-bench.py MAPBOOK_BINARY WORK_FOLDER [ITEMS] [SECONDS] [cluster]

Pages: home (anonymous, newest public items), a search (anonymous), My content signed in
(5,000 own items, first page), the same search's page 200 (deep paging) signed in. Peers in
the same run: the API's `search` as JSON for the same query (the portal's own floor: search
without a page), and nginx serving the rendered search page as a static file over HTTPS with
the same certificate (the floor of any server; skipped without nginx).
"""
import http.client, json, os, re, shutil, ssl, subprocess, sys, time, urllib.parse
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import BINARY, ENV, ROOT, WORK, run, start_portal  # noqa: E402

ITEMS = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
SECONDS = int(sys.argv[4]) if len(sys.argv) > 4 else 20
CLUSTER = len(sys.argv) > 5 and sys.argv[5] == "cluster"
CONNECTIONS = 50
PASSWORD = "bench-password-1"
if CLUSTER:
    cluster = os.path.join(WORK, "cluster")
    subprocess.run([ROOT + "/tools/portal/cluster.sh", "down", cluster], capture_output=True)
    shutil.rmtree(cluster, ignore_errors=True)
    origin = subprocess.run([ROOT + "/tools/portal/cluster.sh", "up", cluster, "3"], env=dict(ENV, MAPBOOK=BINARY, PORTAL_STOP_AFTER="3600"),
                            capture_output=True, text=True, check=True).stdout.strip()
    store = re.search(r"PORTAL_STORE=(\S+)", open(cluster + "/env").read()).group(1)
    run(BINARY, "portal", "user", "add", "alice", "--data", cluster + "/admin", "--store", store, "--admin", "--password-stdin", input=PASSWORD + "\n")
    server, data = None, cluster + "/p1"
else:
    server, origin, data = start_portal(PASSWORD)
host, port = re.match(r"https://([^:/]+):(\d+)", origin).groups()
context = ssl._create_unverified_context()


class Client:
    """One kept-alive HTTPS connection to the portal."""

    def __init__(self):
        self.connection = http.client.HTTPSConnection(host, int(port), context=context)

    def request(self, method, path, fields=None, headers=None):
        body = urllib.parse.urlencode(fields).encode() if fields is not None else None
        all_headers = dict(headers or {})
        if body is not None:
            all_headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.connection.request(method, path, body=body, headers=all_headers)
        response = self.connection.getresponse()
        return response.status, response.getheaders(), response.read()


api = Client()
token = json.loads(api.request("POST", "/sharing/rest/generateToken", {"username": "alice", "password": PASSWORD, "f": "json"})[2])["token"]
auth = {"X-Esri-Authorization": "Bearer " + token}
words = ["Water", "Sewer", "Storm", "Hydrants", "Valves", "Mains", "Laterals", "Parcels", "Streets", "Addresses"]
started = time.time()
for i in range(ITEMS):
    fields = {"f": "json", "type": "Web Mapping Application", "title": f"{words[i % 10]} District {i}", "tags": f"{words[i % 10].lower()},district",
              "snippet": f"Maps of district {i} for the field crews", "url": f"https://example.org/apps/{i}"}
    answer = json.loads(api.request("POST", "/sharing/rest/content/users/alice/addItem", fields, auth)[2])
    if i % 2 == 0:
        api.request("POST", f"/sharing/rest/content/items/{answer['id']}/share", {"f": "json", "everyone": "true"}, auth)
print(f"portal-pages: {ITEMS} items made in {time.time() - started:.0f} s", file=sys.stderr)

# A browser's session, signed in through the pages and the OAuth page.
browser = Client()
status, headers, _ = browser.request("GET", "/home/signin.html?next=/home/content.html")
pending = next(v.split(";")[0] for k, v in headers if k.lower() == "set-cookie" and re.match(r"(__Host-)?mapbook_signin=", v))
location = dict((k.lower(), v) for k, v in headers)["location"]
page = browser.request("GET", location)[2].decode()
state = re.search(r'name="oauth_state" value="([^"]+)"', page).group(1).replace("&amp;", "&")
status, headers, _ = browser.request("POST", "/sharing/oauth2/signin", {"oauth_state": state, "username": "alice", "password": PASSWORD})
callback = urllib.parse.urlsplit(dict((k.lower(), v) for k, v in headers)["location"])
status, headers, _ = browser.request("GET", callback.path + "?" + callback.query, headers={"Cookie": pending})
session = next(v.split(";")[0] for k, v in headers if k.lower() == "set-cookie" and re.match(r"(__Host-)?mapbook_session=", v))


def load(label, path, cookie=None, url=None):
    """wrk on one page: its requests per second and latency percentiles."""
    command = ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{SECONDS}s", "--timeout", "10s", "--latency"]
    if cookie:
        command += ["-H", "Cookie: " + cookie]
    out = subprocess.run(command + [(url or origin) + path], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    latency = {p: re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups() for p in ["50", "99"]}
    ms = {p: float(v) * {"us": 0.001, "ms": 1, "s": 1000}[unit] for p, (v, unit) in latency.items()}
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    print(f"| {label} | {rate:,.0f} | {ms['50']:.1f} | {ms['99']:.1f} |" + (f" {errors.group(1)} non-2xx" if errors else ""), flush=True)


# Each process reads its copy of the items at its first search (PostgreSQL) or at start
# (SQLite); the figures are for a portal that is running, so every process searches once first.
for url in [origin] + ([subprocess.run([ROOT + "/tools/portal/cluster.sh", "url", cluster, str(i)], capture_output=True, text=True, check=True).stdout.strip()
                        for i in (1, 2, 3)] if CLUSTER else []):
    subprocess.run(["curl", "-ksf", "-o", "/dev/null", url + "/home/search.html?q=water"], check=True)

print(f"\n{ITEMS} items, {CONNECTIONS} connections, {SECONDS} s each, " + ("three processes on PostgreSQL and S3 behind nginx" if CLUSTER else "one process on SQLite") + "\n")
print("| page | requests/s | p50 ms | p99 ms |")
print("|---|---|---|---|")
load("home (anonymous, public items, newest first)", "/home")
load("search `water` (anonymous)", "/home/search.html?q=water")
load("My content (signed in, 5,000 own items)", "/home/content.html", session)
load("search `district`, page 200 (signed in)", "/home/search.html?q=district&start=3981", session)
load("peer: the API's search, JSON, `water`", "/sharing/rest/search?f=json&q=water&num=20")

if shutil.which("nginx"):
    folder = os.path.join(WORK, "nginx")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder + "/www")
    with open(folder + "/www/search.html", "wb") as f:
        f.write(Client().request("GET", "/home/search.html?q=water")[2])
    free = subprocess.run(["python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"],
                          capture_output=True, text=True).stdout.strip()
    with open(folder + "/nginx.conf", "w") as f:
        f.write(f"""worker_processes 2; pid {folder}/nginx.pid; error_log {folder}/error.log; daemon on;
events {{ worker_connections 1024; }}
http {{ access_log off;
  server {{ listen 127.0.0.1:{free} ssl; ssl_certificate {data}/tls/certificate.pem; ssl_certificate_key {data}/tls/key.pem;
    root {folder}/www; }} }}
""")
    subprocess.run(["nginx", "-c", folder + "/nginx.conf", "-p", folder], check=True)
    try:
        load("peer: nginx, the same search page as a static file", "/search.html", url=f"https://127.0.0.1:{free}")
    finally:
        subprocess.run(["nginx", "-c", folder + "/nginx.conf", "-p", folder, "-s", "stop"])
if CLUSTER:
    if not os.environ.get("PORTAL_PAGES_KEEP"):  # kept up for a look at PostgreSQL's plans
        subprocess.run([ROOT + "/tools/portal/cluster.sh", "down", cluster], capture_output=True)
else:
    server.terminate()
