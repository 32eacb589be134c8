"""The map viewer (issue 34): a web map online in Debian's chromium through Playwright, against
a running portal (`mapbook portal serve`) whose users alice (an admin) and bob (not) have the
passwords given. alice publishes PACKAGE (the Naperville sample: its editable layers become a
feature service and its maps web maps), privately. Run by MapbookCLITests
(PortalPagesBrowserTests), once on SQLite and once on PostgreSQL + S3:

    .venv/bin/python tools/web/portal_webmap_check.py PORTAL_URL PACKAGE WORK_FOLDER ALICE_PASSWORD BOB_PASSWORD

Checks, at desktop, phone and wide sizes: the Emergency Response Map's page draws the base map
and the service's layers and lists them; a click on a valve shows its attributes; alice
changes one and the service has it (an API query says so); alice attaches a photo to it and
the service has it; alice adds a valve with a click;
the search box finds a feature by its text; bob, once the map is shared with everyone, sees
attributes but no form (nor one to attach files), and his applyEdits is refused; before that, the page is a 404 for him.
No Content-Security-Policy violation, nothing from another host, no dialog. Screenshots go to
WORK_FOLDER.
"""
import json, os, sys, urllib.parse, urllib.request
from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import SIZES, check, drawn_share, finish, form_post, insecure_context, launch, sized_context, wait, watched_page  # noqa: E402

PORTAL, PACKAGE, WORK, ALICE, BOB = sys.argv[1:6]
os.makedirs(WORK, exist_ok=True)
insecure = insecure_context()
API = PORTAL + "/sharing/rest"


def api(path, fields=None, token=None, files=None):
    # The token goes in the query: the portal reads a multipart body only once it knows who asks.
    url = API + path + ("?token=" + token if token else "")
    return form_post(url, dict(fields or {}, f="json"), files, context=insecure)


token = api("/generateToken", {"username": "alice", "password": ALICE, "referer": PORTAL})["token"]
name = os.path.basename(PACKAGE)
with open(PACKAGE, "rb") as f:
    added = api("/content/users/alice/addItem", {"type": "Mobile Map Package", "title": "Water Network Online", "fileName": name}, token,
                files={"file": (name, f.read())})
PACKAGE = added["id"]
made = [i for i in api("/content/users/alice", {"num": "100"}, token)["items"] if f"mapbookSource:{PACKAGE}" in i.get("typeKeywords", [])]
webmap = next(i for i in made if i["type"] == "Web Map" and i["title"] == "Emergency Response Map")
service = next(i for i in made if i["type"] == "Feature Service")
data = json.loads(urllib.request.urlopen(f"{API}/content/items/{webmap['id']}/data?token={token}", context=insecure).read())
valves = next(l for l in data["operationalLayers"] if "Valve" in l["title"])
# The service as this portal serves it (the web map names the host it was published through).
valves_url = PORTAL + urllib.parse.urlparse(valves["url"]).path


def query(where, fields="*"):
    with urllib.request.urlopen(f"{valves_url}/query?" + urllib.parse.urlencode(
            {"where": where, "outFields": fields, "f": "json", "token": token}), context=insecure) as response:
        return json.loads(response.read()).get("features", [])


def count():
    with urllib.request.urlopen(f"{valves_url}/query?" + urllib.parse.urlencode(
            {"where": "1=1", "returnCountOnly": "true", "f": "json", "token": token}), context=insecure) as response:
        return json.loads(response.read())["count"]


PAGE = f"{PORTAL}/home/webmap.html?id={webmap['id']}"


def png(width, height):
    """A small PNG (a colour ramp) to attach."""
    import struct, zlib
    rows = b"".join(b"\x00" + b"".join(bytes([(x * 4) % 256, (y * 4) % 256, 160]) for x in range(width)) for y in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


photo = os.path.join(WORK, "valve-photo.png")
with open(photo, "wb") as f:
    f.write(png(64, 48))
IDLE = "() => document.getElementById('webmap')?.dataset.state === 'idle'"
# A valve's place on screen: the first one MapLibre drew, projected.
FIND_VALVE = """(source) => {
    const map = window.mapbookWebMap;
    const ids = map.getStyle().layers.filter(l => l.source === source).map(l => l.id);
    const hit = map.queryRenderedFeatures({ layers: ids }).find(f => f.geometry.type === 'Point');
    if (!hit) return null;
    const p = map.project(hit.geometry.coordinates);
    const box = map.getCanvas().getBoundingClientRect();
    return { x: box.left + p.x, y: box.top + p.y, id: hit.id };
}"""


def valve_on_screen(page):
    """Zooms in where valves are, so that a click meets one alone; where one is drawn, or None."""
    source = "layer:" + valves["id"]
    page.evaluate("(source) => { const map = window.mapbookWebMap; const f = map.querySourceFeatures(source)[0]; map.jumpTo({ center: f.geometry.coordinates, zoom: 18 }); }", source)
    wait(page, IDLE, 60)
    page.wait_for_timeout(300)
    wait(page, IDLE, 60)
    return page.evaluate(FIND_VALVE, source)


def sign_in(page, user, password, next_path):
    page.goto(PORTAL + "/home/signin.html?next=" + urllib.parse.quote(next_path))
    page.fill("#username", user)
    page.fill("#password", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "oauth2" not in url and "signin" not in url)


with sync_playwright() as p:
    browser = launch(p)
    for width, height, size in SIZES:
        context = sized_context(browser, width, height, size)
        page, dialogs, violations, elsewhere = watched_page(context, PORTAL)
        sign_in(page, "alice", ALICE, PAGE.replace(PORTAL, ""))
        idle = wait(page, IDLE, 90)
        check(f"{size}: the web map page draws and goes idle", idle, page.inner_text("#webmap-status")[:300])
        layers = page.inner_text("#webmap-layers")
        check(f"{size}: it lists the web map's layers", all(l["title"] in layers for l in data["operationalLayers"]), layers[:300])
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        check(f"{size}: the page fits the width", overflow <= 0, f"{overflow} px too wide")
        page.locator("#webmap").screenshot(path=f"{WORK}/webmap-{size}.png")
        share = drawn_share(f"{WORK}/webmap-{size}.png")
        check(f"{size}: the map is drawn ({share:.0%})", share > 0.05)

        # A click on a valve: its attributes, in a form alice may save.
        spot = valve_on_screen(page)
        check(f"{size}: a valve is drawn where it is", spot is not None)
        if not spot:
            context.close()
            continue
        page.mouse.click(spot["x"], spot["y"])
        page.wait_for_selector("#webmap-feature:not([hidden]) .attributes", timeout=20000)
        check(f"{size}: a click shows the valve's attributes", "Valve" in page.inner_text("#webmap-feature"), page.inner_text("#webmap-feature")[:300])
        form = page.locator("#webmap-edit")
        check(f"{size}: alice, who may edit, gets a form", form.count() == 1)
        page.screenshot(path=f"{WORK}/webmap-feature-{size}.png", full_page=size != "desktop")
        if size == "desktop" and form.count():
            text_input = page.locator("#webmap-edit input[type=text]").first
            name = text_input.get_attribute("name")
            text_input.fill("Checked from the map viewer")
            page.click("#webmap-edit button[type=submit]")
            page.wait_for_selector("#webmap-edit .notice, #webmap-edit .error", timeout=20000)
            said = page.inner_text("#webmap-edit")
            check("alice's change is saved", "Saved." in said, said[-300:])
            saved = query(f"{name} = 'Checked from the map viewer'", name)
            check("the service has alice's change (an API query finds it)", len(saved) == 1, str(saved)[:200])

            # A photo attached to the valve: listed with its size, shown small, in the service.
            page.wait_for_selector("#webmap-feature .attachments li", timeout=20000)
            page.set_input_files("#webmap-attachment-file", photo)
            page.click("#webmap-attachment-add button[type=submit]")
            shown = wait(page, "() => document.querySelector('#webmap-feature img.attachment-thumbnail')?.complete === true", 20)
            listed = page.inner_text("#webmap-feature .attachments")
            check("alice attaches a photo to the valve and sees it", shown and "valve-photo.png" in listed, listed[:300])
            id_field = json.loads(urllib.request.urlopen(f"{valves_url}?f=json&token={token}", context=insecure).read())["objectIdField"]
            oid = query(f"{name} = 'Checked from the map viewer'")[0]["attributes"][id_field]
            infos = json.loads(urllib.request.urlopen(f"{valves_url}/{oid}/attachments?f=json&token={token}", context=insecure).read()).get("attachmentInfos", [])
            check("the service has the photo", [i["name"] for i in infos] == ["valve-photo.png"], str(infos)[:300])
            page.screenshot(path=f"{WORK}/webmap-attachment-{size}.png")

            # A new valve with a click.
            before = count()
            if page.locator("#webmap-add-section:not([hidden])").count():
                page.click("#webmap-add")
                box = page.locator("#webmap canvas").bounding_box()
                page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.3)
                page.wait_for_selector("#webmap-new", timeout=20000)
                # The new valve's form asks for what the layer requires: pick the first choice of each list.
                for select in page.locator("#webmap-new select").all():
                    options = select.locator("option").all()
                    if len(options) > 1:
                        select.select_option(index=1)
                for field in page.locator("#webmap-new input[required]").all():
                    field.fill("1" if field.get_attribute("type") == "number" else "New from the map viewer")
                page.screenshot(path=f"{WORK}/webmap-new-{size}.png")
                page.click("#webmap-new button[type=submit]")
                added = wait(page, "() => /Added to/.test(document.getElementById('webmap-status').textContent)", 20)
                check("alice adds a valve with a click and its attributes", added and count() == before + 1,
                      page.inner_text("#webmap-status")[:200] + " / " + page.inner_text("#webmap-feature")[:200])
            else:
                check("the valves layer takes new features", False, "no Add section")

            # The search box finds the feature by its new text.
            page.fill("#webmap-q", "from the map viewer")
            page.click("#webmap-search button[type=submit]")
            page.wait_for_selector("#webmap-results li", timeout=20000)
            check("the search finds the changed valve", "Checked from the map viewer" in page.inner_text("#webmap-results") or
                  page.locator("#webmap-results li button").count() >= 1, page.inner_text("#webmap-results")[:300])
            page.screenshot(path=f"{WORK}/webmap-search-{size}.png")
        check(f"{size}: no page broke its Content-Security-Policy", not violations, "; ".join(violations[:3]))
        check(f"{size}: nothing was fetched from another host", not elsewhere, str(elsewhere[:3]))
        check(f"{size}: no dialog opened", not dialogs, str(dialogs))
        context.close()

    # bob: nothing while the map is alice's alone; attributes but no edits once it is shared.
    context = browser.new_context(viewport={"width": 1280, "height": 800}, ignore_https_errors=True)
    page = context.new_page()
    sign_in(page, "bob", BOB, "/home/content.html")
    response = page.goto(PAGE)
    check("bob: alice's private web map is not found", response.status == 404, str(response.status))
    for item in [webmap["id"], service["id"], PACKAGE]:
        api(f"/content/items/{item}/share", {"everyone": "true"}, token)
    page.goto(PAGE)
    wait(page, IDLE, 90)
    spot = valve_on_screen(page)
    if spot:
        page.mouse.click(spot["x"], spot["y"])
        page.wait_for_selector("#webmap-feature:not([hidden]) .attributes", timeout=20000)
    check("bob: a click shows the valve's attributes", spot is not None and page.locator("#webmap-feature .attributes").count() == 1)
    check("bob: no form to edit it", page.locator("#webmap-edit").count() == 0 and page.locator("#webmap-add").count() == 0)
    check("bob: no form to attach files", page.locator("#webmap-attachment-add").count() == 0)
    refused = page.evaluate("""async (url) => {
        const csrf = document.querySelector('meta[name="csrf-token"]').content;
        const response = await fetch(url + '/applyEdits', { method: 'POST', headers: { 'X-CSRF-Token': csrf },
            body: new URLSearchParams({ f: 'json', deletes: '[1]' }) });
        return (await response.json()).error?.code;
    }""", urllib.parse.urlparse(valves_url).path)
    check("bob: his applyEdits is refused", refused == 403, str(refused))
    page.screenshot(path=f"{WORK}/webmap-bob.png")
    context.close()
sys.exit(finish())
