"""The portal's web pages in Debian's chromium through Playwright (issue 34), against a running
portal (`mapbook portal serve`) whose users alice (an admin) and bob (not) have the passwords
given. Run by MapbookCLITests (PortalPagesBrowserTests), once on SQLite and once on
PostgreSQL + S3:

    .venv/bin/python tools/web/portal_check.py PORTAL_URL PACKAGE WORK_FOLDER ALICE_PASSWORD BOB_PASSWORD

Publishes PACKAGE through the API twice (a public item, and a private one titled with a script
and described with HTML), then checks, at desktop and phone sizes: the home page lists public
items only, with a Sign in link; signing in with the keyboard alone through the portal's OAuth
page lands on the page asked for; My content lists the private item as text; the item page
shows the package's maps and a live preview of the first, drawn by MapLibre from the portal's
own tiles (read in place from the stored package); bob finds no trace of alice's private item; a form without its CSRF
token is refused; the portal cannot be framed; no page breaks its Content-Security-Policy, and
no script ever runs from an item's text (a dialog fails the check). Screenshots go to WORK_FOLDER.
"""
import json, os, sys, urllib.parse, urllib.request
from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import SIZES, check, drawn_share, fetch, finish, form_post, insecure_context, launch, sized_context, wait, watched_page  # noqa: E402

PORTAL, PACKAGE, WORK, ALICE, BOB = sys.argv[1:6]
os.makedirs(WORK, exist_ok=True)
insecure = insecure_context()
API = PORTAL + "/sharing/rest"
HOSTILE_TITLE = "<script>alert(1)</script>"
HOSTILE_DESCRIPTION = "<p>Valves of the east side.</p><img src=x onerror=alert(2)><b>bold</b>"


def post(url, fields, files=None):
    return form_post(url, fields, files, context=insecure)


token = post(API + "/generateToken", {"username": "alice", "password": ALICE, "f": "json"})["token"]
with open(PACKAGE, "rb") as f:
    package = f.read()
name = os.path.basename(PACKAGE)


def add_item(title, extra):
    fields = {"f": "json", "type": "Mobile Map Package", "title": title, "fileName": name, **extra}
    answer = post(f"{API}/content/users/alice/addItem?token={token}", fields, {"file": (name, package)})
    if "id" not in answer:
        raise SystemExit("addItem failed: " + json.dumps(answer))
    return answer["id"]


public_id = add_item("Public Water Network", {"snippet": "Mains and valves for everyone", "tags": "water,public"})
post(f"{API}/content/items/{public_id}/share?token={token}", {"everyone": "true", "f": "json"})
private_id = add_item(HOSTILE_TITLE, {"description": HOSTILE_DESCRIPTION, "snippet": '"><svg onload=alert(3)>', "tags": "<i>secret</i>"})

with sync_playwright() as p:
    browser = launch(p)
    for width, height, size in SIZES:
        context = sized_context(browser, width, height, size)
        page, dialogs, violations, elsewhere = watched_page(context, PORTAL)
        tiles = []
        page.on("response", lambda r: tiles.append(r.status) if "/maps/1/" in r.url and "/tiles/" in r.url else None)

        def fits(what):
            overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            check(f"{size}: {what} fits the width", overflow <= 0, f"{overflow} px too wide")

        # Signed out: public items only, and a way to sign in.
        page.goto(PORTAL + "/home")
        text = page.inner_text("main")
        check(f"{size}: home lists the public item", "Public Water Network" in text, text[:400])
        check(f"{size}: home shows nothing of the private item", "alert(1)" not in page.content() and private_id not in page.content())
        check(f"{size}: home offers Sign in", page.locator("a", has_text="Sign in").count() == 1)
        fits("home")
        page.screenshot(path=f"{WORK}/home-{size}.png", full_page=True)

        # Sign in with the keyboard alone: the skip link first, then through the bar to Sign in.
        if size == "desktop":
            page.goto(PORTAL + "/home/content.html")
            check("content asks for a sign-in first", "/sharing/oauth2/authorize" in page.url, page.url)
            page.goto(PORTAL + "/home")
            page.keyboard.press("Tab")
            check("the first Tab reaches the skip link", page.evaluate("() => document.activeElement.textContent.trim()") == "Skip to the content")
            for _ in range(8):
                if page.evaluate("() => document.activeElement.textContent.trim()") == "Sign in":
                    break
                page.keyboard.press("Tab")
            check("Tab reaches Sign in", page.evaluate("() => document.activeElement.textContent.trim()") == "Sign in")
            page.keyboard.press("Enter")
            page.wait_for_selector("#username")
            # autofocus takes effect at the page's first rendering, which may come after the
            # field exists: wait a moment for it rather than reading the focus at once.
            focused = wait(page, "() => document.activeElement && document.activeElement.id === 'username'", seconds=5)
            check("the sign-in page focuses the user name", focused, page.evaluate("() => document.activeElement.id"))
            labels = page.eval_on_selector_all("input:not([type=hidden])", "els => els.map(e => e.labels.length)")
            check("every sign-in field has a label", all(n == 1 for n in labels), str(labels))
            page.screenshot(path=f"{WORK}/signin-{size}.png")
            page.keyboard.type("alice")
            page.keyboard.press("Tab")
            page.keyboard.type(ALICE)
            page.keyboard.press("Enter")
        else:
            page.goto(PORTAL + "/home/signin.html?next=/home/content.html")
            page.fill("#username", "alice")
            page.fill("#password", ALICE)
            page.click("button[type=submit]")
        page.wait_for_url(lambda url: "/home" in url and "oauth2" not in url)
        if size == "desktop":
            # The keyboard sign-in came back to home: go to the content from the bar.
            page.click("nav a[href='/home/content.html']")
        page.wait_for_selector(".items")
        text = page.inner_text("main")
        check(f"{size}: My content lists the private item, its title as text", HOSTILE_TITLE in text, text[:600])
        cookies = {c["name"]: c for c in context.cookies()}
        # On TLS the cookie has the __Host- prefix: only a secure page of this very host sets it.
        session = cookies.get("__Host-mapbook_session", {})
        check(f"{size}: the session cookie is __Host-, HttpOnly, Secure and SameSite=Strict for the whole host",
              session.get("httpOnly") and session.get("secure") and session.get("sameSite") == "Strict" and session.get("path") == "/"
              and "mapbook_session" not in cookies, str(cookies))
        fits("my content")
        page.screenshot(path=f"{WORK}/content-{size}.png", full_page=True)

        if size == "desktop":
            # Upload from the browser, in parts, with a progress bar; then a refused one.
            page.click("text=Upload a package")
            page.wait_for_selector("#file")
            page.set_input_files("#file", PACKAGE)
            page.fill("#title", "Uploaded From The Browser")
            page.select_option("#access", "org")
            page.click("#upload-now")
            page.wait_for_url(lambda url: "/home/item.html?id=" in url, timeout=60000)
            text = page.inner_text("main")
            check("an upload from the browser becomes an item page", "Uploaded From The Browser" in text and "organization" in text, text[:400])
            page.goto(PORTAL + "/home/content.html")
            check("the uploaded item is listed in My content", "Uploaded From The Browser" in page.inner_text("main"))
            broken = os.path.join(WORK, "Broken.mmpk")
            with open(broken, "wb") as f:
                f.write(b"PK\x03\x04 not really a package" * 100)
            page.goto(PORTAL + "/home/upload.html")
            page.set_input_files("#file", broken)
            page.click("#upload-now")
            refused = page.wait_for_selector("#upload-findings .error", timeout=60000)
            findings = page.inner_text("#upload-findings")
            check("a refused upload shows why", refused is not None and "not valid" in findings, findings[:400])
            page.screenshot(path=f"{WORK}/upload-refused-{size}.png", full_page=True)
            page.goto(PORTAL + "/home/content.html?q=Broken")
            check("a refused upload leaves no item", page.locator(".items .item").count() == 0, page.inner_text("main")[:300])
        else:
            page.goto(PORTAL + "/home/upload.html")
            fits("the upload page")
            page.screenshot(path=f"{WORK}/upload-{size}.png", full_page=True)

        page.goto(f"{PORTAL}/home/item.html?id={private_id}")
        text = page.inner_text("main")
        check(f"{size}: the item page shows the title and description as text",
              HOSTILE_TITLE in text and "Valves of the east side." in text and "bold" in text, text[:600])
        check(f"{size}: the item's HTML made no element", page.locator("main img[src=x], main svg, main b, main i").count() == 0)
        check(f"{size}: the item page shows the package's maps", page.locator(".maps .map").count() >= 1, text[:800])
        fits("the item page")
        # The live preview: the first map drawn from the portal's tiles, until nothing is left to load.
        check(f"{size}: the item page has a map preview", page.locator("#preview").count() == 1)
        idle = wait(page, "() => document.getElementById('preview')?.dataset.state === 'idle'", 60)
        check(f"{size}: the preview loads its tiles and goes idle", idle, page.inner_text("#preview")[:200] if page.locator("#preview").count() else "")
        check(f"{size}: the preview's tiles were served", tiles and all(status in (200, 204) for status in tiles) and tiles.count(200) > 0, str(tiles[:20]))
        if idle:
            page.locator("#preview").screenshot(path=f"{WORK}/preview-{size}.png")
            share = drawn_share(f"{WORK}/preview-{size}.png")
            check(f"{size}: the preview draws the map ({share:.0%} of it drawn)", share > 0.05)
        page.screenshot(path=f"{WORK}/item-{size}.png", full_page=True)

        # Administration: a user added from the Users page, a group, the audit log.
        if size == "desktop":
            page.click("nav a[href='/home/organization.html']")
            page.click("text=Users")
            page.fill("#username", "carol")
            page.fill("#fullName", "Carol <b>Crew</b>")
            page.fill("#password", "carol-password-1")
            page.click("text=Add the user")
            page.wait_for_url(lambda url: "/home/user.html?name=carol" in url)
            check("an admin adds a user from the Users page", "Carol <b>Crew</b>" in page.inner_text("h1"), page.inner_text("main")[:300])
            page.screenshot(path=f"{WORK}/user-{size}.png", full_page=True)
            page.click("nav a[href='/home/groups.html']")
            page.fill("#title", "Field Crew")
            page.check("input[name=sharedUpdate]")
            page.click("text=Create the group")
            page.fill("#user", "carol")
            page.click("button:text-is('Add')")
            check("a group is created and carol added", "carol" in page.inner_text(".plain") and "yes" in page.inner_text("main"), page.inner_text("main")[:300])
            page.screenshot(path=f"{WORK}/group-{size}.png", full_page=True)
            page.set_viewport_size({"width": 360, "height": 740})
            fits("the group page on a phone")
            page.screenshot(path=f"{WORK}/group-phone.png", full_page=True)
            page.set_viewport_size({"width": 1280, "height": 800})
            # Its settings changed, then the group deleted: not without ticking the box.
            page.select_option("#access", "org")
            page.uncheck("input[name=sharedUpdate]")
            page.click("text=Save the settings")
            facts = page.inner_text(".facts-table")
            check("the group's settings are changed from its page", "The organization" in facts and "no" in facts, facts)
            page.click("button:text-is('Delete the group')")
            check("deleting asks for the box to be ticked first", "/home/group.html" in page.url, page.url)
            page.check("input[name=confirm]")
            page.click("button:text-is('Delete the group')")
            page.wait_for_url(lambda url: url.endswith("/home/groups.html"))
            check("the deleted group is gone from the list", "Field Crew" not in page.inner_text("main"), page.inner_text("main")[:300])
            page.goto(PORTAL + "/home/audit.html")
            text = page.inner_text("main")
            check("the audit log lists the actions with who and from where",
                  all(a in text for a in ["added a user", "created a group", "added a group member", "changed a group", "deleted a group"]) and "127.0.0.1" in text,
                  text[:600])
            page.screenshot(path=f"{WORK}/audit-{size}.png", full_page=True)
        else:
            for path in ["/home/users.html", "/home/groups.html", "/home/audit.html", "/home/organization.html"]:
                page.goto(PORTAL + path)
                fits(path)
            page.screenshot(path=f"{WORK}/users-{size}.png", full_page=True)

        # A form without its CSRF token changes nothing; the API refuses the cookie alone.
        refused = page.evaluate("""async () => {
            const out = await fetch('/home/signout', {method: 'POST', body: new URLSearchParams({})});
            const api = await fetch('/sharing/rest/content/users/alice/items/%s/delete', {method: 'POST', body: new URLSearchParams({f: 'json'})});
            return [out.status, (await api.json()).error?.code];
        }""" % private_id)
        check(f"{size}: a sign-out and a delete without the CSRF token are refused", refused == [403, 403], str(refused))
        page.reload()
        check(f"{size}: still signed in after the refused sign-out", page.locator("button", has_text="Sign out").count() == 1)

        check(f"{size}: no page broke its Content-Security-Policy", not violations, "; ".join(violations[:3]))

        # The portal refuses to be framed, from a page that is not the portal's.
        framer = context.new_page()
        framer.goto("about:blank")
        framer.set_content(f'<iframe id="f" src="{PORTAL}/home" width="400" height="300"></iframe>')
        framer.wait_for_timeout(1500)
        framed = framer.frames[1] if len(framer.frames) > 1 else None
        shown = ""
        try:
            shown = framed.evaluate("() => document.body ? document.body.innerText : ''") if framed else ""
        except Exception:
            shown = ""
        check(f"{size}: a page in a frame shows nothing of the portal", "Public Water Network" not in shown, shown[:200])
        check(f"{size}: no script from an item's text ran", not dialogs, str(dialogs))
        check(f"{size}: nothing was fetched from another host", not elsewhere, str(elsewhere[:3]))
        context.close()

    # bob: no trace of alice's private item anywhere he looks.
    context = browser.new_context(viewport={"width": 1280, "height": 800}, ignore_https_errors=True)
    page = context.new_page()
    page.goto(PORTAL + "/home/signin.html?next=/home/content.html")
    page.fill("#username", "bob")
    page.fill("#password", BOB)
    page.click("button[type=submit]")
    page.wait_for_selector(".items", state="attached")
    for path in ["/home", "/home/content.html", "/home/search.html?q=alert", "/home/search.html?q=tags%3Asecret",
                 f"/home/search.html?q=id%3A{private_id}"]:
        page.goto(PORTAL + path)
        listed = page.locator(".items .item").count()
        check(f"bob: {path} lists nothing of alice's private item", "alert(1)" not in page.inner_text(".items") and
              page.locator(f"a[href*='{private_id}']").count() == 0, f"{listed} items")
    response = page.goto(f"{PORTAL}/home/item.html?id={private_id}")
    check("bob: the private item's page says not found", response.status == 404 and "Item not found" in page.inner_text("main"))
    status = page.evaluate(f"async () => (await fetch('/home/items/{private_id}/thumbnail')).status")
    check("bob: its thumbnail is not found either", status == 404, str(status))
    statuses = page.evaluate(f"""async () => Promise.all(['/home/items/{private_id}/maps/1/style.json',
        '/home/items/{private_id}/maps/1/basemaps/0/tiles/0/0/0.pbf', '/home/items/{private_id}/maps/1/basemaps/0/resources/styles/root.json']
        .map(async url => (await fetch(url)).status))""")
    check("bob: its preview's style, tiles and resources are not found either", statuses == [404, 404, 404], str(statuses))
    status = page.evaluate(f"async () => (await fetch('/home/items/{public_id}/maps/1/style.json')).status")
    check("bob: the public item's preview is there", status == 200, str(status))
    page.screenshot(path=f"{WORK}/not-found.png")
    context.close()

status, headers, _ = fetch(PORTAL + "/home", context=insecure)
policy = headers.get("Content-Security-Policy", "")
check("pages send a policy without inline scripts that refuses framing",
      "script-src 'self'" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy, policy)
status, headers, body = fetch(PORTAL + "/home", method="HEAD", context=insecure)
check("pages answer HEAD as GET", status == 200 and body == b"" and headers.get("Content-Type", "").startswith("text/html"), str(status))
sys.exit(finish())
