"""Synchronising from a map page of `mapbook serve`, in Debian's chromium through Playwright, on
a downloaded Naperville package whose device has edits and a conflict waiting. Run by
MapbookCLITests (PortalClientTests) against a real portal process:

    .venv/bin/python tools/web/sync_check.py MAPBOOK_BINARY MAPBOOK_HOME WORK_FOLDER sync|update

`sync`: the Edit panel lists the pending edits and who the sync runs as; "Synchronise now"
sends them, says what happened, lists the conflict, and leaves no edit pending.
`update`: the library page shows the package's "Update available" badge and an "Update now"
button; on the phone size it is pressed: the new version comes by delta, the page says what it
fetched, and the library shows the package up to date.
`offline`: a map page's "Take offline" panel takes the area on screen offline: the portal
makes the package, it joins the library (one package more), the page says so.
Prints `ok ...` / `FAIL ...` lines, then `all checks passed`; screenshots go to WORK_FOLDER.
"""
import json, os, sys
from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Server, check, fetch, finish, launch, wait  # noqa: E402

BINARY, HOME, WORK, MODE = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
server = Server(BINARY, dict(os.environ, MAPBOOK_HOME=HOME))
library = json.loads(fetch(server.origin + "/api/packages")[2])
key = next(p["key"] for p in library if p["title"].startswith("Naperville Water Company"))

with sync_playwright() as p:
    browser = launch(p)
    for width, height, size in [(1280, 800, "desktop"), (360, 740, "phone")]:
        context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=size == "phone", has_touch=size == "phone")
        page = context.new_page()
        if MODE == "update":
            page.goto(server.origin + "/")
            card = page.locator(".card", has_text="Naperville Water Company")
            check(f"{size}: the library shows the package's update badge", card.locator(".badge.update").count() == 1
                  and "Update available" in card.inner_text(), card.inner_text())
            check(f"{size}: and an Update now button", card.locator("button.update-now").count() == 1, card.inner_text())
            page.screenshot(path=f"{WORK}/update-{size}.png")
            if size == "phone":
                # The update itself, on the phone: by delta, said, then the library without the badge.
                card.locator("button.update-now").click()
                said = wait(page, "() => /^Updated .* by delta: fetched/.test((document.querySelector('.update-outcome') || {}).textContent || '')", 60)
                check("Update now fetches the new version by delta and says what it cost", said, card.inner_text())
                page.screenshot(path=f"{WORK}/updated-{size}.png")
                # The page shows the library again a moment later.
                page.wait_for_timeout(3000)
                page.wait_for_load_state("load")
                gone = wait(page, "() => !document.querySelector('.badge.update') && !!document.querySelector('.card')", 20)
                check("the library then shows the package up to date", gone, page.inner_text("main"))
                page.screenshot(path=f"{WORK}/updated-after-{size}.png")
            context.close()
            continue
        if MODE == "offline":
            page.goto(server.origin + f"/packages/{key}/maps/1/")
            wait(page, "() => Boolean(window.mapbook && window.mapbook.ready && window.mapbook.idle)", 60)
            shown = wait(page, "() => !document.querySelector('[data-panel=offline]').hidden")
            check(f"{size}: a downloaded package offers Take offline", shown)
            page.click("[data-panel=offline]")
            page.wait_for_selector("#offline-now")
            overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            check(f"{size}: the panel fits the width", overflow <= 0, f"{overflow} px too wide")
            if size == "desktop":
                before = len(json.loads(fetch(server.origin + "/api/packages")[2]))
                page.select_option("#offline-detail", "10000")
                page.click("#offline-now")
                done = wait(page, "() => /^Took offline/.test((document.getElementById('offline-outcome') || {}).textContent || '')", 120)
                check("Take this area offline makes the package and says so", done, page.inner_text("#panel"))
                after = json.loads(fetch(server.origin + "/api/packages")[2])
                check("the area's package joins the library", len(after) == before + 1, str([p["title"] for p in after]))
            page.screenshot(path=f"{WORK}/offline-{size}.png")
            context.close()
            continue
        page.goto(server.origin + f"/packages/{key}/maps/2/")
        wait(page, "() => Boolean(window.mapbook && window.mapbook.ready && window.mapbook.idle)", 60)
        wait(page, "() => window.mapbook.editable && !document.querySelector('[data-panel=edit]').hidden")
        page.click("[data-panel=edit]")
        if size == "desktop":
            page.wait_for_selector("#sync-now")
            pending = page.eval_on_selector_all("#pending-edits li", "items => items.map(i => i.textContent)")
            check("the Edit panel lists the edits not yet synchronised", len(pending) == 2, str(pending))
            check("it says where and as whom the sync runs", "as alice" in page.inner_text("#sync"), page.inner_text("#sync"))
            page.screenshot(path=f"{WORK}/sync-before-{size}.png")
            page.click("#sync-now")
            done = wait(page, "() => /^Synchronised/.test((document.getElementById('sync-outcome') || {}).textContent || '')", 60)
            outcome = page.inner_text("#sync") if done else page.inner_text("#panel")
            check("Synchronise now sends the edits and says what happened", done and "sent 2 changes" in outcome and "1 conflict" in outcome, outcome)
            rows = page.eval_on_selector_all("#sync-conflicts tbody tr", "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))")
            check("the conflict is listed: the field, both values, the one kept", any(r[1] == "TURNS" and r[2] == "20" and r[3] == "10" for r in rows), str(rows))
            pending = page.eval_on_selector_all("#pending-edits li", "items => items.map(i => i.textContent)")
            check("no edit is pending after the sync", pending == ["None"], str(pending))
        else:
            # On a phone the panel, its pending list and the conflicts table fit the width.
            page.wait_for_selector("#sync-conflicts")
            overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            check("phone: the conflicts panel does not widen the page", overflow <= 0, f"{overflow} px too wide")
        page.screenshot(path=f"{WORK}/sync-after-{size}.png")
        context.close()
    browser.close()
server.stop()
sys.exit(finish())
