"""An item page's devices, versions and conflicts in Debian's chromium through Playwright
(issue 34), against a running portal where devices downloaded, synchronised and updated
the item with `mapbook`. Run by MapbookCLITests (PortalClientTests+Pages):

    .venv/bin/python tools/web/portal_devices_check.py PORTAL_URL ITEM_ID ALICE_PASSWORD WORK_FOLDER STEP

STEP `stale`: two devices hold version 1 while version 2 is out: the page says both are out
of date, lists them, and shows the conflict their syncs met with both values; then the admin
requires the current version from the page. STEP `updated`: one device updated: one is out
of date, and the required version is said. Prints `ok ...` / `FAIL ...` lines, then
`all checks passed`; screenshots go to WORK_FOLDER.
"""
import os, sys
from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import SIZES, check, finish, launch, sized_context  # noqa: E402

PORTAL, ITEM, PASSWORD, WORK, STEP = sys.argv[1:6]
os.makedirs(WORK, exist_ok=True)

with sync_playwright() as p:
    browser = launch(p)
    for width, height, size in SIZES:
        context = sized_context(browser, width, height, size)
        page = context.new_page()
        page.goto(f"{PORTAL}/home/signin.html?next=/home/item.html%3Fid%3D{ITEM}")
        page.fill("#username", "alice")
        page.fill("#password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_selector("#devices")
        status = page.inner_text("#devices + p")
        rows = page.eval_on_selector_all("#devices ~ .scroll table.grid tbody tr",
                                         "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent.trim()))")
        if STEP == "stale":
            check(f"{size}: both devices are out of date after version 2", "2 devices hold this item; 2 are out of date." in status, status)
            check(f"{size}: each device is listed with its user and version", len(rows) == 2 and all("out of date" in r[0] for r in rows), str(rows))
            conflicts = page.eval_on_selector_all("table.conflicts tbody tr", "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent.trim()))")
            check(f"{size}: the conflict shows the field with both values",
                  any(r[2].upper() == "TURNS" and r[4] == "10" and r[5] == "20" for r in conflicts), str(conflicts))
        else:
            check(f"{size}: the updated device is current, the other out of date", "2 devices hold this item; 1 is out of date." in status, status)
            check(f"{size}: the page says which version is required", "Devices must hold the version of" in page.inner_text("#devices ~ p.notice, main"))
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        check(f"{size}: the page fits the width", overflow <= 0, f"{overflow} px too wide")
        page.screenshot(path=f"{WORK}/devices-{STEP}-{size}.png", full_page=True)
        if STEP == "stale" and size == "desktop":
            page.click("text=Require the current version")
            page.wait_for_selector("text=Devices must hold the version of")
            check("requiring the current version is said on the page", "Lift the requirement" in page.inner_text("#devices ~ form"))
        context.close()
sys.exit(finish())
