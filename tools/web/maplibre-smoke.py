"""Issue 32's first risk, checked: MapLibre GL JS (from tools/setup) draws with WebGL 2 in
Debian's chromium driven by Playwright (--no-sandbox --enable-unsafe-swiftshader), at phone
and desktop sizes. Serves a page with a red square on loopback, waits for the map's idle
event, and writes a screenshot per size to look at. Run: .venv/bin/python tools/web/maplibre-smoke.py
(seen 2026-11-27: WebGL 2.0, idle after 1.35 s at 1280x800, under the CSP below with no
violation). The browser tests of
`mapbook serve` replace it."""
import functools, http.server, os, sys, tempfile, threading, time
from playwright.sync_api import sync_playwright

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
maplibre = os.path.join(root, "Sources/MapbookWeb/Resources/maplibre")
site = tempfile.mkdtemp()
for name in ("maplibre-gl.js", "maplibre-gl.css"):
    os.symlink(os.path.join(maplibre, name), os.path.join(site, name))
open(os.path.join(site, "index.html"), "w").write("""<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="maplibre-gl.css"><style>html,body,#map{margin:0;height:100%}</style></head>
<body><div id="map"></div><script src="maplibre-gl.js"></script><script src="app.js"></script></body></html>""")
open(os.path.join(site, "app.js"), "w").write("""const map = new maplibregl.Map({container: 'map', style: {version: 8, sources: {
  square: {type: 'geojson', data: {type: 'Polygon', coordinates: [[[-10,-10],[10,-10],[10,10],[-10,10],[-10,-10]]]}}},
  layers: [{id: 'bg', type: 'background', paint: {'background-color': '#f2efe9'}},
           {id: 'square', type: 'fill', source: 'square', paint: {'fill-color': '#cc3333'}}]},
  center: [0, 0], zoom: 2, attributionControl: false});
map.on('idle', () => { window.mapIdle = true; });
map.on('error', (e) => { window.mapError = String(e.error && e.error.message); });""")

# The headers `mapbook serve` must send with every response. MapLibre starts its workers from
# blob: URLs and sets inline styles on its elements, so those two are allowed; scripts only from
# the server itself, never inline.
CSP = ("default-src 'self'; script-src 'self'; worker-src blob:; child-src blob:; img-src 'self' data: blob:; "
       "style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        super().end_headers()


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=site))
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
failed = False
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--enable-unsafe-swiftshader"])
    for width, height, name in [(360, 640, "phone"), (1280, 800, "desktop")]:
        page = browser.new_page(viewport={"width": width, "height": height})
        violations = []
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        start = time.time()
        page.goto(url)
        # Polled from here: wait_for_function evaluates a string in the page, which the CSP forbids.
        while not page.evaluate("() => Boolean(window.mapIdle || window.mapError)"):
            if time.time() - start > 30:
                sys.exit(f"{name}: the map was not idle after 30 s")
            time.sleep(0.05)
        error = page.evaluate("window.mapError || null")
        shot = os.path.join(site, name + ".png")
        page.screenshot(path=shot)
        webgl = page.evaluate("""(() => { const c = document.querySelector('canvas');
            const g = c.getContext('webgl2', {preserveDrawingBuffer: true}); return g ? g.getParameter(g.VERSION) : 'none'; })()""")
        print(f"{name}: idle after {time.time() - start:.2f} s, {webgl}, error {error}, screenshot {shot}")
        for v in violations:
            print("  CSP:", v)
        failed |= error is not None or bool(violations)
    browser.close()
server.shutdown()
sys.exit(1 if failed else 0)
