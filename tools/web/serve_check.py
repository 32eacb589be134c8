"""`mapbook serve` driven in a real browser (Debian's chromium through Playwright), as a user
would: the library, a package's maps and a map page on the Naperville sample, at phone and
desktop sizes. Run by MapbookCLITests (ServeBrowserTests) in `make test`:

    .venv/bin/python tools/web/serve_check.py MAPBOOK_BINARY WORK_FOLDER

Each check prints `ok <what>` or `FAIL <what>: <why>`; the last line is `all checks passed`
when every one did. Screenshots of each page at both sizes go to WORK_FOLDER/shots, for a
person to look at.
"""
import json, os, re, shutil, subprocess, sys, time
from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Server as Serving, check, drawn_share, fetch, finish, launch, wait  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY, WORK = sys.argv[1], sys.argv[2]
SHOTS = os.path.join(WORK, "shots")
HOME = os.path.join(WORK, "home")
os.makedirs(SHOTS, exist_ok=True)
ENV = dict(os.environ, MAPBOOK_HOME=HOME)
def mapbook(*arguments):
    done = subprocess.run([BINARY, *arguments], env=ENV, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"mapbook {' '.join(arguments)}: {done.stderr}")
    return done.stdout


# MARK: - Packages: the Naperville sample, and a small polygon map to compare drawings with.

sample = os.path.join(WORK, "sample")
os.makedirs(sample, exist_ok=True)
subprocess.run([sys.executable, os.path.join(ROOT, "tools/samples/naperville.py"), sample], check=True, capture_output=True)
for name in ("project.yaml", "search-quality.yaml"):
    shutil.copy(os.path.join(ROOT, "samples/naperville-water", name), sample)
naperville = os.path.join(WORK, "Naperville.mmpk")
mapbook("create", os.path.join(sample, "project.yaml"), "-o", naperville, "--fixed-time", "2026-01-01")

plots_dir = os.path.join(WORK, "plots")
os.makedirs(plots_dir, exist_ok=True)
with open(os.path.join(plots_dir, "plots.geojson"), "w") as f:
    json.dump({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"NAME": "Courtyard block"}, "geometry": {"type": "Polygon", "coordinates": [
            [[-88.150, 41.750], [-88.140, 41.750], [-88.140, 41.760], [-88.150, 41.760], [-88.150, 41.750]],
            [[-88.147, 41.753], [-88.147, 41.757], [-88.143, 41.757], [-88.143, 41.753], [-88.147, 41.753]]]}},
        {"type": "Feature", "properties": {"NAME": "East lot"}, "geometry": {"type": "Polygon", "coordinates": [
            [[-88.139, 41.751], [-88.131, 41.752], [-88.133, 41.759], [-88.139, 41.758], [-88.139, 41.751]]]}}]}, f)
with open(os.path.join(plots_dir, "project.yaml"), "w") as f:
    f.write("""title: Plots
crs: EPSG:3857
sources:
  plots: { path: plots.geojson, title: Plots }
maps:
  - name: Blocks
    layers:
      - source: plots
        renderer: { simple: { color: "#3c78d8" } }
    bookmarks:
      - { name: All, center: [-88.1405, 41.755], scale: 12000 }
""")
plots = os.path.join(WORK, "Plots.mmpk")
mapbook("create", os.path.join(plots_dir, "project.yaml"), "-o", plots, "--fixed-time", "2026-01-01")

# A real Esri vector tile package as the backdrop: basemap.de, with its own style, sprites and
# glyphs (from ../shared/fixtures; left out, and said, when they are not there).
BASEMAP_DE = os.path.join(ROOT, "..", "shared", "fixtures", "vtpk-basemapde", "sample_cache")
germany = None
if os.path.isdir(BASEMAP_DE):
    import zipfile
    germany_dir = os.path.join(WORK, "germany")
    os.makedirs(germany_dir, exist_ok=True)
    with zipfile.ZipFile(os.path.join(germany_dir, "basemap.vtpk"), "w", zipfile.ZIP_STORED) as z:
        for folder, _, files in os.walk(BASEMAP_DE):
            for name in sorted(files):
                z.write(os.path.join(folder, name), os.path.relpath(os.path.join(folder, name), BASEMAP_DE))
    with open(os.path.join(germany_dir, "cities.geojson"), "w") as f:
        json.dump({"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"name": "Berlin"}, "geometry": {"type": "Point", "coordinates": [13.40, 52.52]}},
            {"type": "Feature", "properties": {"name": "Frankfurt"}, "geometry": {"type": "Point", "coordinates": [8.68, 50.11]}}]}, f)
    with open(os.path.join(germany_dir, "project.yaml"), "w") as f:
        f.write("title: Germany\ncrs: EPSG:3857\nextent: [5.5, 47.2, 15.5, 55.1]\nsources:\n  cities: { path: cities.geojson, title: Cities }\n"
                "backdrop: { path: basemap.vtpk, title: basemap.de }\nmaps:\n  - name: Germany\n    layers: [cities]\n")
    germany = os.path.join(WORK, "Germany.mmpk")
    mapbook("create", os.path.join(germany_dir, "project.yaml"), "-o", germany, "--fixed-time", "2026-01-01")
else:
    print("skip basemap.de in the browser: ../shared/fixtures/vtpk-basemapde is not there", flush=True)


# MARK: - The server

def Server(*arguments):
    return Serving(BINARY, ENV, *arguments)


server = Server(naperville, plots, *([germany] if germany else []))
library = json.loads(fetch(server.origin + "/api/packages")[2])
key = next(p["key"] for p in library if p["title"] == "Naperville Water Company")
plots_key = next(p["key"] for p in library if p["title"] == "Plots")
germany_key = next((p["key"] for p in library if p["title"] == "Germany"), None)
map_path = f"/packages/{key}/maps/1/"


# MARK: - HTTP: headers on every response, HEAD as GET

for path in ["/", map_path, f"/api/packages/{key}/maps/1", "/static/app.js", "/no/such/page", f"/api/packages/{key}/maps/9"]:
    status, headers, body = fetch(server.origin + path)
    csp = headers.get("Content-Security-Policy", "")
    check(f"{path} ({status}) carries the security headers",
          "script-src 'self'" in csp and "unsafe-eval" not in csp and "frame-ancestors 'none'" in csp
          and headers.get("X-Content-Type-Options") == "nosniff" and headers.get("X-Frame-Options") == "DENY", str(headers))
    head_status, head_headers, head_body = fetch(server.origin + path, method="HEAD")
    check(f"HEAD {path} answers as GET does", head_status == status and head_body == b""
          and head_headers.get("Content-Type") == headers.get("Content-Type"), f"{head_status} {head_headers}")
status, _, body = fetch(server.origin + f"/api/packages/{key}/maps/9")
check("an unknown map is a 404 with its kind in JSON", status == 404 and json.loads(body)["error"]["kind"] == "unknownMap", body[:200])


# MARK: - The browser

requests_seen = []
console_errors = []


def open_page(context, path, wait_map=True):
    page = context.new_page()
    page.on("request", lambda r: requests_seen.append(r.url))
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.goto(server.origin + path)
    if wait_map:
        wait(page, "() => Boolean(window.mapbook && window.mapbook.ready && window.mapbook.idle)", 60)
    return page


def blue_mask(png_path, width, height):
    """The pixels of the blue fill (drawn with the symbol's transparency over the background),
    of the top-left `width` x `height`."""
    from PIL import Image
    image = Image.open(png_path).convert("RGB").crop((0, 0, width, height))
    return [p[2] - p[0] > 60 for p in (image.get_flattened_data() if hasattr(image, "get_flattened_data") else image.getdata())]


with sync_playwright() as p:
    browser = launch(p)
    for width, height, size in [(1280, 800, "desktop"), (360, 740, "phone")]:
        context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=size == "phone", has_touch=size == "phone")

        page = open_page(context, "/", wait_map=False)
        wait(page, "() => Array.from(document.images).every(i => i.complete)")
        page.screenshot(path=f"{SHOTS}/library-{size}.png")
        links = page.eval_on_selector_all(".cards h2 a", "links => links.map(a => a.textContent)")
        check(f"{size}: the library lists each package with its title as a link", "Naperville Water Company" in links and "Plots" in links, str(links))
        check(f"{size}: the library shows size, maps and expiration", "3 maps" in page.inner_text("main") and "Expires 2030-01-01" in page.inner_text("main"))
        page.click("text=Naperville Water Company")
        page.wait_for_selector(".maps .cards")
        wait(page, "() => Array.from(document.images).every(i => i.complete)")
        page.screenshot(path=f"{SHOTS}/maps-{size}.png")
        maps = page.eval_on_selector_all(".cards h2 a", "links => links.map(a => a.textContent)")
        check(f"{size}: a package's page lists its maps as links", maps == ["811 Map", "Emergency Response Map", "CIP Map"], str(maps))
        page.close()

        page = open_page(context, map_path)
        page.screenshot(path=f"{SHOTS}/map-{size}.png")
        share = drawn_share(f"{SHOTS}/map-{size}.png")
        check(f"{size}: the map draws (pixels, not only the DOM)", share > 0.2, f"{share:.2f} of the pixels drawn")
        check(f"{size}: the search box is an input of type search", page.get_attribute("#search-input", "type") == "search")

        # Search: suggestions while typing, Enter opens the pop-up.
        page.fill("#search-input", "484 w spr")
        shown = wait(page, "() => document.querySelectorAll('#suggestions li').length > 0")
        suggestions = page.eval_on_selector_all("#suggestions li", "items => items.map(i => i.textContent)")
        check(f"{size}: typing a search shows suggestions", shown and "484 W Spring Ave" in suggestions, str(suggestions))
        page.screenshot(path=f"{SHOTS}/suggest-{size}.png")
        page.press("#search-input", "Enter")
        opened = wait(page, "() => document.querySelector('#panel:not([hidden]) .popup h3') !== null")
        check(f"{size}: Enter opens the result's pop-up", opened and "484 W Spring Ave" in page.inner_text("#panel"), page.inner_text("#panel") if opened else "no pop-up")
        wait(page, "() => Boolean(window.mapbook.idle)", 30)
        page.screenshot(path=f"{SHOTS}/search-{size}.png")
        page.click("#panel-close")

        # A tap on a feature opens its pop-up: the centre of the search result is an address point.
        point = page.evaluate("() => { const p = window.mapbook.map.project(window.mapbook.map.getCenter()); const r = document.getElementById('map').getBoundingClientRect(); return [r.left + p.x, r.top + p.y]; }")
        if size == "phone":
            page.touchscreen.tap(point[0], point[1])
        else:
            page.mouse.click(point[0], point[1])
        opened = wait(page, "() => document.querySelector('#panel:not([hidden]) .popup') !== null")
        check(f"{size}: a tap on a feature opens its pop-up", opened and "Address Points" in page.inner_text("#panel"), page.inner_text("#status"))
        page.screenshot(path=f"{SHOTS}/identify-{size}.png")
        page.click("#panel-close")
        page.close()

        # The table of contents: hiding a layer removes its features, and is kept for `mapbook toc`.
        if size == "desktop":
            page = open_page(context, map_path)
            mains = "() => window.mapbook.map.queryRenderedFeatures({layers: window.mapbook.map.getStyle().layers.filter(l => l.metadata && l.metadata['mapbook:layer'] === 'mains').map(l => l.id)}).length"
            before = page.evaluate(mains)
            page.click("[data-panel=layers]")
            page.wait_for_selector("#toc-mains")
            page.screenshot(path=f"{SHOTS}/layers-{size}.png")
            page.uncheck("#toc-mains")
            wait(page, "() => !document.getElementById('toc-mains').disabled")
            # Rendered features are those of the last frame drawn: polled until it is redrawn.
            wait(page, f"() => ({mains})() === 0")
            after = page.evaluate(mains)
            check("hiding Water Mains in the table of contents removes its features", before > 0 and after == 0, f"{before} then {after}")
            toc = json.loads(mapbook("toc", naperville, "--json"))
            layers = toc["layers"] if isinstance(toc, dict) else toc
            mains_row = next(l for l in layers if l["id"] == "mains")
            check("mapbook toc shows the layer hidden on this device", mains_row["visible"] is False, str(mains_row))
            page.check("#toc-mains")
            wait(page, "() => !document.getElementById('toc-mains').disabled")
            # A bookmark takes the map there.
            page.click("[data-panel=bookmarks]")
            page.click("#panel-body >> text=Downtown")
            # Its centre lands in the middle of what the open panel leaves of the map.
            moved = wait(page, """() => { const b = window.mapbook.info.bookmarks.find(b => b.name === 'Downtown').bounds;
                const p = window.mapbook.map.project([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]);
                const free = document.getElementById('panel').getBoundingClientRect().left - document.getElementById('map').getBoundingClientRect().left;
                return Math.abs(p.x - free / 2) < 3 && Math.abs(p.y - window.mapbook.map.getCanvas().clientHeight / 2) < 3; }""")
            check("a bookmark takes the map there", moved)
            wait(page, "() => Boolean(window.mapbook.idle)")
            # The idle flag may still be the one from before the move: wait for the labels
            # themselves to be placed (a loaded machine places them late).
            symbols = "(name) => window.mapbook.map.queryRenderedFeatures({layers: window.mapbook.map.getStyle().layers.filter(l => l.type === 'symbol' && l.metadata && l.metadata['mapbook:layer'] === name).map(l => l.id)})"
            wait(page, f"() => ({symbols})('basemap:0').length > 0 && ({symbols})('mains').length > 0")
            labels = page.evaluate("() => window.mapbook.map.queryRenderedFeatures({layers: window.mapbook.map.getStyle().layers.filter(l => l.type === 'symbol' && l.metadata && l.metadata['mapbook:layer'] === 'basemap:0').map(l => l.id)}).length")
            check("the backdrop's street names draw with the glyphs create wrote", labels > 0, str(labels))
            # The mains' labels (the layer's labelingInfo, an Arcade expression) as mapbook render writes them.
            texts = page.evaluate("() => window.mapbook.map.queryRenderedFeatures({layers: window.mapbook.map.getStyle().layers.filter(l => l.type === 'symbol' && l.metadata && l.metadata['mapbook:layer'] === 'mains').map(l => l.id)}).map(f => f.properties._label0)")
            check("the mains are labelled with their size and material", len(texts) > 0 and all(re.fullmatch(r"\d+in [A-Za-z ]+", t or "") for t in texts), str(texts[:5]))
            page.screenshot(path=f"{SHOTS}/bookmark-{size}.png")
            page.click("[data-panel=legend]")
            page.wait_for_selector(".legend img")
            wait(page, "() => Array.from(document.querySelectorAll('.legend img')).every(i => i.complete && i.naturalWidth > 0)")
            check("the legend shows our renderer's swatches", page.evaluate("() => Array.from(document.querySelectorAll('.legend img')).every(i => i.naturalWidth === 20)"))
            page.screenshot(path=f"{SHOTS}/legend-{size}.png")
            # The basemap picker: the shaded relief (a raster .tpkx) in place of the backdrop.
            page.click("[data-panel=basemaps]")
            page.wait_for_selector("#bm-basemap\\:1")
            before = len([u for u in requests_seen if "/basemaps/1/tiles/" in u])
            page.check("#bm-basemap\\:1")
            time.sleep(0.3)
            wait(page, "() => Boolean(window.mapbook.idle)", 30)
            relief = [u for u in requests_seen if "/basemaps/1/tiles/" in u][before:]
            hidden = page.evaluate("() => window.mapbook.map.getStyle().layers.filter(l => l.metadata && l.metadata['mapbook:layer'] === 'basemap:0').every(l => (l.layout || {}).visibility === 'none')")
            check("switching the basemap requests the other base map's tiles and hides the first", before == 0 and len(relief) > 0 and hidden, f"{before} before, {len(relief)} after, first hidden: {hidden}")
            page.screenshot(path=f"{SHOTS}/basemap-relief-{size}.png")
            page.close()

        # Editing: a value outside its domain is refused with the reason; one inside it is
        # added, drawn, and listed by `mapbook edit edits`.
        if size == "desktop":
            page = open_page(context, f"/packages/{key}/maps/2/")
            wait(page, "() => window.mapbook.editable && !document.querySelector('[data-panel=edit]').hidden")
            page.click("[data-panel=edit]")
            page.wait_for_selector("#edit-layer")
            page.select_option("#edit-layer", "valves")
            page.click("text=Tap the map where it goes")
            center = page.evaluate("() => { const r = document.getElementById('map').getBoundingClientRect(); return [r.left + r.width / 3, r.top + r.height / 2]; }")
            page.mouse.click(center[0], center[1])
            page.wait_for_selector(".edit-form [name=TURNS]")
            page.select_option(".edit-form [name=VALVETYPE]", "Gate")
            page.fill(".edit-form [name=TURNS]", "500")
            page.click(".edit-form button[type=submit]")
            refused = wait(page, "() => document.querySelector('.edit-form .problem').textContent.length > 0")
            reason = page.inner_text(".edit-form .problem") if refused else ""
            check("an edit outside a field's range is refused with the reason", refused and "200" in reason
                  and page.query_selector(".edit-form [data-field=TURNS].invalid") is not None, reason)
            page.screenshot(path=f"{SHOTS}/edit-refused-{size}.png")
            page.fill(".edit-form [name=TURNS]", "20")
            page.click(".edit-form button[type=submit]")
            added = wait(page, "() => document.getElementById('panel').hidden && /Added feature/.test(document.getElementById('status').textContent)")
            fid = int(re.search(r"Added feature (\d+)", page.inner_text("#status")).group(1)) if added else -1
            edits = json.loads(mapbook("edit", "edits", naperville, "--json"))
            check("the edit is kept in the working copy (mapbook edit edits)", any(e["layer"] == "valves" and e["operation"] == "insert" and e["fid"] == fid for e in edits), str(edits))
            wait(page, "() => Boolean(window.mapbook.idle)")
            shown = wait(page, f"""() => window.mapbook.map.queryRenderedFeatures({{layers: window.mapbook.map.getStyle().layers
                .filter(l => l.metadata && l.metadata['mapbook:layer'] === 'valves').map(l => l.id)}}).some(f => f.id === {fid})""")
            check("the added feature shows on the map", added and shown, page.inner_text("#status"))
            page.screenshot(path=f"{SHOTS}/edit-added-{size}.png")
            # A photo from the file picker (a phone offers its camera there) is attached and shown.
            from PIL import Image
            Image.new("RGB", (64, 48), (200, 120, 40)).save(os.path.join(WORK, "valve.jpg"), "JPEG")
            page.mouse.click(center[0], center[1])
            page.wait_for_selector(f"#attach-valves-{fid}", state="attached")
            page.set_input_files(f"#attach-valves-{fid}", os.path.join(WORK, "valve.jpg"))
            attached = wait(page, "() => /^Attached valve.jpg/.test(document.getElementById('status').textContent)")
            page.click("#panel-close")
            page.mouse.click(center[0], center[1])
            shown = wait(page, "() => Array.from(document.querySelectorAll('#panel .popup img')).some(i => i.complete && i.naturalWidth === 64)")
            listed = json.loads(mapbook("edit", "edits", naperville, "--json"))
            check("a photo attached from the browser is kept and shown in the pop-up", attached and shown
                  and any("attach" in e["layer"].lower() and e["operation"] == "insert" for e in listed), f"{page.inner_text('#status')} {[(e['layer'], e['operation']) for e in listed]}")
            page.screenshot(path=f"{SHOTS}/edit-photo-{size}.png")
            page.close()

        # Directions, from the user's location.
        geo = browser.new_context(viewport={"width": width, "height": height}, is_mobile=size == "phone", has_touch=size == "phone",
                                  geolocation={"longitude": -88.1650641, "latitude": 41.7578603, "accuracy": 25}, permissions=["geolocation"])
        page = open_page(geo, map_path)
        page.click(".maplibregl-ctrl-geolocate")
        located = wait(page, "() => document.querySelector('.maplibregl-user-location-dot') !== null && window.mapbook.lastLocation !== null")
        check(f"{size}: the browser's location shows as a dot with its accuracy", located and page.query_selector(".maplibregl-user-location-accuracy-circle") is not None)
        page.click("[data-panel=directions]")
        page.wait_for_selector("#route-from")
        page.click("#route-from + .row >> text=My location")
        page.fill("#route-to", "451 E Chicago Ave")
        page.click("text=Get directions")
        listed = wait(page, "() => document.querySelectorAll('#route-steps li').length > 1", 30)
        steps = page.eval_on_selector_all("#route-steps li", "items => items.map(i => i.textContent)")
        summary = page.inner_text("#route-summary")
        check(f"{size}: directions from the user's location list their steps", listed and "-88.165064,41.757860" in page.input_value("#route-from")
              and "451 E Chicago Ave" in summary and steps[-1].startswith("Arrive"), f"{summary} {steps[:3]}")
        wait(page, "() => Boolean(window.mapbook.idle)")
        drawn = page.evaluate("() => window.mapbook.map.queryRenderedFeatures({layers: ['mapbook-route']}).length")
        check(f"{size}: the route is drawn on the map", drawn > 0, str(drawn))
        page.screenshot(path=f"{SHOTS}/directions-{size}.png")
        page.close()
        geo.close()

        # basemap.de draws with its style and its labels (Esri's glyphs; the fonts its style
        # names but the package lacks are drawn from the installed fonts).
        if size == "desktop" and germany_key:
            page = open_page(context, f"/packages/{germany_key}/maps/1/")
            page.evaluate("() => window.mapbook.map.jumpTo({center: [10.4, 51.1], zoom: 5.5})")
            time.sleep(0.3)
            wait(page, "() => Boolean(window.mapbook.idle)")
            # The idle flag may still be the one from before the move: wait for the labels
            # themselves to be placed (a loaded machine places them late).
            symbols = "(name) => window.mapbook.map.queryRenderedFeatures({layers: window.mapbook.map.getStyle().layers.filter(l => l.type === 'symbol' && l.metadata && l.metadata['mapbook:layer'] === name).map(l => l.id)})"
            wait(page, f"() => ({symbols})('basemap:0').length > 0 && ({symbols})('mains').length > 0")
            labels = page.evaluate("() => window.mapbook.map.queryRenderedFeatures().filter(f => f.layer.type === 'symbol' && f.layer.metadata && f.layer.metadata['mapbook:layer'] === 'basemap:0').map(f => f.properties.name || '')")
            page.screenshot(path=f"{SHOTS}/basemapde-{size}.png")
            from PIL import Image
            shot = Image.open(f"{SHOTS}/basemapde-{size}.png").convert("RGB")
            pixels = list(shot.get_flattened_data() if hasattr(shot, "get_flattened_data") else shot.getdata())
            # basemap.de's land colour, rgb(255,253,238).
            filled = sum(1 for p in pixels if abs(p[0] - 255) + abs(p[1] - 253) + abs(p[2] - 238) < 8) / len(pixels)
            check("basemap.de draws in the browser with its labels", "Berlin" in labels and filled > 0.3, f"{labels[:5]}, {filled:.2f} drawn")
            page.close()

        # The same view drawn by `mapbook render` and by the browser: a polygon layer's fill.
        if size == "desktop":
            page = open_page(context, f"/packages/{plots_key}/maps/1/")
            page.add_style_tag(content=".search, .tools, .maplibregl-control-container { display: none !important; }")
            bounds = page.evaluate("() => window.mapbook.info.bookmarks[0].bounds")
            page.evaluate(f"() => window.mapbook.map.fitBounds([[{bounds[0]}, {bounds[1]}], [{bounds[2]}, {bounds[3]}]], {{padding: 0, duration: 0}})")
            wait(page, "() => Boolean(window.mapbook.idle)")
            box = page.evaluate("() => { const r = document.getElementById('map').getBoundingClientRect(); return [r.width, r.height]; }")
            page.locator("#map").screenshot(path=f"{SHOTS}/compare-browser.png")
            mapbook("render", plots, "--bookmark", "All", "--size", f"{int(box[0])}x{int(box[1])}", "-o", f"{SHOTS}/compare-render.png")
            # The map's box may be a fraction of a pixel taller than the picture asked for.
            w, h = int(box[0]), int(box[1])
            a = blue_mask(f"{SHOTS}/compare-browser.png", w, h)
            b = blue_mask(f"{SHOTS}/compare-render.png", w, h)
            union = sum(1 for x, y in zip(a, b) if x or y)
            iou = sum(1 for x, y in zip(a, b) if x and y) / union if union else 0
            check("mapbook render and the browser fill the same pixels (IoU >= 0.9)", union > 10_000 and iou >= 0.9, f"IoU {iou:.3f} over {union} pixels")
            page.close()
        context.close()

    # Offline: the shell opens again with the network off.
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = open_page(context, "/", wait_map=False)
    # The worker takes the page over once it has kept the shell (clients.claim).
    check("the service worker takes the page over", wait(page, "() => navigator.serviceWorker.controller !== null", 20))
    context.set_offline(True)
    try:
        page.reload()
        check("with the network off, the library page opens again from the service worker", "Naperville Water Company" in page.inner_text("body"))
    except Exception as error:
        check("with the network off, the library page opens again from the service worker", False, str(error))
    context.set_offline(False)
    context.close()
    browser.close()

origins = {re.match(r"[a-z]+:(//[^/]+)?", u).group(0) for u in requests_seen if not u.startswith("blob:") and not u.startswith("data:")}
check("every request the pages make goes to the server itself", origins == {server.origin.split("//")[0] + "//" + server.origin.split("//")[1]} or origins == {server.origin}, str(origins))
# Errors while the network was off on purpose are expected, and the refused edit's 422.
check("the pages log no errors (CSP violations included)",
      not [e for e in console_errors if "ERR_INTERNET_DISCONNECTED" not in e and "status of 422" not in e], str(console_errors[:5]))
server.stop()

# MARK: - A network address asks for the secret

secret_server = Server(naperville, "--host", "127.0.0.2")
address = secret_server.address
check("on a network address the printed address carries a key", "?key=" in address, address)
status, headers, _ = fetch(secret_server.origin + "/")
check("a request without the key is refused (401)", status == 401 and "Content-Security-Policy" in headers, str(status))
status, _, _ = fetch(secret_server.origin + "/?key=wrong")
check("a wrong key is refused (401)", status == 401, str(status))
status, headers, _ = fetch(address)
cookie = headers.get("Set-Cookie", "")
check("the right key opens the library and sets an HttpOnly, SameSite=Strict cookie", status == 200 and "HttpOnly" in cookie and "SameSite=Strict" in cookie, cookie)
status, _, _ = fetch(secret_server.origin + "/api/packages", headers={"Cookie": cookie.split(";")[0]})
check("the cookie lets the page's later requests in", status == 200, str(status))
# The QR code printed under the address opens it (decoded as a phone's camera would).
secret_server.process.stdout.readline()
# Each line: colours set, half blocks (two rows of modules), colours reset; size + 1 rows / 2 lines.
def qr_line():
    return re.sub(r"\x1b\[[0-9;]*m", "", secret_server.process.stdout.readline().rstrip("\n"))
rows = [qr_line()]
rows += [qr_line() for _ in range((len(rows[0]) + 1) // 2 - 1)]
secret_server.stop()
import zxingcpp
from PIL import Image
qr = Image.new("L", (len(rows[0]) + 8, 2 * len(rows) + 8), 255)
for y, row in enumerate(rows):
    for x, c in enumerate(row):
        if c in "\u2588\u2580":
            qr.putpixel((x + 4, 2 * y + 4), 0)
        if c in "\u2588\u2584":
            qr.putpixel((x + 4, 2 * y + 5), 0)
qr = qr.resize((qr.width * 8, qr.height * 8), Image.NEAREST)
decoded = [r.text for r in zxingcpp.read_barcodes(qr)] or [r.text for r in zxingcpp.read_barcodes(Image.eval(qr, lambda v: 255 - v))]
check("the QR code in the terminal opens the address with its key", decoded == [address], f"{decoded} for {address}")

# MARK: - HTTPS on a network address: the service worker works there too

import ssl
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.2",
                "-addext", "subjectAltName=IP:127.0.0.2", "-keyout", os.path.join(WORK, "key.pem"), "-out", os.path.join(WORK, "cert.pem")],
               check=True, capture_output=True)
tls_server = Server(naperville, "--host", "127.0.0.2", "--tls-cert", os.path.join(WORK, "cert.pem"), "--tls-key", os.path.join(WORK, "key.pem"))
trusted = ssl.create_default_context(cafile=os.path.join(WORK, "cert.pem"))
status, headers, _ = fetch(tls_server.address, context=trusted)
check("--tls-cert serves HTTPS with the key in the address", tls_server.address.startswith("https://127.0.0.2:") and "?key=" in tls_server.address
      and status == 200, f"{tls_server.address} {status}")
with sync_playwright() as p:
    # The phone trusts the certificate (docs/SERVE.md says how); here chromium is told to.
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--enable-unsafe-swiftshader", "--ignore-certificate-errors"])
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.goto(tls_server.address)
    secure = page.evaluate("() => window.isSecureContext")
    controlled = wait(page, "() => navigator.serviceWorker.controller !== null", 20)
    context.set_offline(True)
    try:
        page.reload()
        offline = "Naperville Water Company" in page.inner_text("body")
    except Exception as error:
        offline = False
        print("offline reload:", error)
    check("over HTTPS on a network address the page is a secure context and reopens offline", secure and controlled and offline,
          f"secure {secure}, worker {controlled}, offline {offline}")
    browser.close()
tls_server.stop()

sys.exit(finish())
