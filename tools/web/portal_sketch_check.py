"""New lines and areas drawn in the map viewer (issue 34), in Debian's chromium through
Playwright, against a running portal (`mapbook portal serve`) whose user alice (an admin) has
the password given. The script writes a small project of its own (a pipes layer of lines
whose material is required, a zones layer of areas, both editable), builds it with MAPBOOK
and publishes it as alice. Run by MapbookCLITests (PortalPagesBrowserTests), once on SQLite
and once on PostgreSQL + S3:

    .venv/bin/python tools/web/portal_sketch_check.py PORTAL_URL MAPBOOK_BINARY WORK_FOLDER ALICE_PASSWORD

Checks, at desktop and phone sizes: the add section offers both layers and says "Draw on the
map"; a line of three clicks, finished with its button (desktop) or a double click (phone),
asks for the pipe's material and is then in the service as a polyline of three vertices; an
area of three clicks is in the service as a closed ring; a vertex drawn and cancelled is gone. No
Content-Security-Policy violation, nothing from another host, no dialog. Screenshots go to
WORK_FOLDER.
"""
import json, os, subprocess, sys, urllib.parse, urllib.request
from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import check, finish, form_post, insecure_context, launch, sized_context, wait, watched_page  # noqa: E402

PORTAL, BINARY, WORK, ALICE = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
insecure = insecure_context()
API = PORTAL + "/sharing/rest"

project = os.path.join(WORK, "project")
os.makedirs(project, exist_ok=True)
with open(os.path.join(project, "pipes.geojson"), "w") as f:
    json.dump({"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"material": "PVC"},
               "geometry": {"type": "LineString", "coordinates": [[-122.62, 45.50], [-122.60, 45.52]]}}]}, f)
with open(os.path.join(project, "zones.geojson"), "w") as f:
    json.dump({"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"name": "North"}, "geometry": {
        "type": "Polygon", "coordinates": [[[-122.625, 45.515], [-122.605, 45.515], [-122.605, 45.525], [-122.625, 45.525], [-122.625, 45.515]]]}}]}, f)
with open(os.path.join(project, "project.yaml"), "w") as f:
    f.write("""title: Network
sources:
  pipes:
    path: pipes.geojson
    title: Pipes
    edit:
      fields:
        material: { domain: [PVC, Iron, Copper], required: true }
  zones:
    path: zones.geojson
    title: Zones
    edit: {}
maps:
  - name: Network
    layers: [zones, pipes]
""")
package = os.path.join(WORK, "Network.mmpk")
subprocess.run([BINARY, "create", os.path.join(project, "project.yaml"), "-o", package], check=True, capture_output=True)


def api(path, fields=None, token=None, files=None):
    url = API + path + ("?token=" + token if token else "")
    return form_post(url, dict(fields or {}, f="json"), files, context=insecure)


token = api("/generateToken", {"username": "alice", "password": ALICE, "referer": PORTAL})["token"]
with open(package, "rb") as f:
    added = api("/content/users/alice/addItem", {"type": "Mobile Map Package", "title": "Network Sketches", "fileName": "Network.mmpk"}, token,
                files={"file": ("Network.mmpk", f.read())})
made = [i for i in api("/content/users/alice", {"num": "100"}, token)["items"] if f"mapbookSource:{added['id']}" in i.get("typeKeywords", [])]
webmap = next(i for i in made if i["type"] == "Web Map")
data = json.loads(urllib.request.urlopen(f"{API}/content/items/{webmap['id']}/data?token={token}", context=insecure).read())
layer_urls = {l["title"]: PORTAL + urllib.parse.urlparse(l["url"]).path for l in data["operationalLayers"]}


def features(title):
    with urllib.request.urlopen(f"{layer_urls[title]}/query?" + urllib.parse.urlencode(
            {"where": "1=1", "outFields": "*", "f": "json", "token": token}), context=insecure) as response:
        return json.loads(response.read()).get("features", [])


PAGE = f"{PORTAL}/home/webmap.html?id={webmap['id']}"
IDLE = "() => document.getElementById('webmap')?.dataset.state === 'idle'"


def sign_in(page):
    page.goto(PORTAL + "/home/signin.html?next=" + urllib.parse.quote(PAGE.replace(PORTAL, "")))
    page.fill("#username", "alice")
    page.fill("#password", ALICE)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "oauth2" not in url and "signin" not in url)


def draw(page, title, spots, double_click):
    """Picks the layer, clicks `spots` (fractions of the map) and ends the shape."""
    page.select_option("#webmap-add-layer", label=title)
    page.click("#webmap-add")
    box = page.locator("#webmap canvas").bounding_box()
    for k, (fx, fy) in enumerate(spots):
        x, y = box["x"] + box["width"] * fx, box["y"] + box["height"] * fy
        if double_click and k == len(spots) - 1:
            page.mouse.dblclick(x, y)
        else:
            page.mouse.click(x, y)
            page.wait_for_timeout(400)  # apart from the next click: not a double click
    if not double_click:
        page.click("#webmap-sketch-finish")


with sync_playwright() as p:
    browser = launch(p)
    for width, height, size in [(1280, 800, "desktop"), (360, 740, "phone")]:
        context = sized_context(browser, width, height, size)
        page, dialogs, violations, elsewhere = watched_page(context, PORTAL)
        sign_in(page)
        check(f"{size}: the web map page draws and goes idle", wait(page, IDLE, 90), page.inner_text("#webmap-status")[:300])
        offered = page.locator("#webmap-add-layer option").all_inner_texts()
        check(f"{size}: lines and areas can be added to", sorted(offered) == ["Pipes", "Zones"], str(offered))
        page.select_option("#webmap-add-layer", label="Pipes")
        check(f"{size}: the button says to draw", page.inner_text("#webmap-add") == "Draw on the map", page.inner_text("#webmap-add"))

        # Cancel leaves nothing.
        pipes_before, zones_before = len(features("Pipes")), len(features("Zones"))
        page.click("#webmap-add")
        box = page.locator("#webmap canvas").bounding_box()
        page.mouse.click(box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.4)
        drawn = "() => window.mapbookWebMap.getSource('sketch').serialize().data.features.length"
        shown = wait(page, drawn + " === 1", 10)
        page.click("#webmap-sketch-cancel")
        cleared = wait(page, drawn + " === 0", 10)
        check(f"{size}: a click draws a vertex and Cancel clears it", shown and cleared and page.locator("#webmap-sketch").is_hidden(),
              f"drawn before Cancel: {shown}, cleared after: {cleared}, now {page.evaluate(drawn)}")

        # A pipe of three vertices, with its required material.
        draw(page, "Pipes", [(0.2, 0.3), (0.5, 0.6), (0.7, 0.4)], size == "phone")
        page.wait_for_selector("#webmap-new", timeout=20000)
        check(f"{size}: the new pipe's form asks for its material", "material (required)" in page.inner_text("#webmap-new"), page.inner_text("#webmap-new")[:200])
        page.screenshot(path=f"{WORK}/sketch-line-{size}.png", full_page=size != "desktop")
        page.select_option("#webmap-new select", index=1)
        page.click("#webmap-new button[type=submit]")
        check(f"{size}: the pipe is added", wait(page, "() => /Added to Pipes/.test(document.getElementById('webmap-status').textContent)", 20),
              page.inner_text("#webmap-status")[:200] + " / " + page.inner_text("#webmap-feature")[:200])
        pipes = features("Pipes")
        paths = pipes[-1]["geometry"].get("paths", []) if len(pipes) == pipes_before + 1 else []
        check(f"{size}: the service has the pipe as a line of three vertices", len(paths) == 1 and len(paths[0]) == 3, str(pipes[-1:])[:300])

        # An area of three corners.
        wait(page, IDLE, 60)
        draw(page, "Zones", [(0.2, 0.7), (0.4, 0.9), (0.3, 0.95)], False)
        page.wait_for_selector("#webmap-new", timeout=20000)
        page.click("#webmap-new button[type=submit]")
        check(f"{size}: the zone is added", wait(page, "() => /Added to Zones/.test(document.getElementById('webmap-status').textContent)", 20),
              page.inner_text("#webmap-status")[:200])
        zones = features("Zones")
        rings = zones[-1]["geometry"].get("rings", []) if len(zones) == zones_before + 1 else []
        check(f"{size}: the service has the zone as a closed ring", len(rings) == 1 and len(rings[0]) == 4 and rings[0][0] == rings[0][-1], str(zones[-1:])[:300])
        wait(page, IDLE, 60)
        page.screenshot(path=f"{WORK}/sketch-added-{size}.png", full_page=size != "desktop")
        check(f"{size}: no page broke its Content-Security-Policy", not violations, "; ".join(violations[:3]))
        check(f"{size}: nothing was fetched from another host", not elsewhere, str(elsewhere[:3]))
        check(f"{size}: no dialog opened", not dialogs, str(dialogs))
        context.close()
    browser.close()
sys.exit(finish())
