"""Drives a Mapbook portal with the real `arcgis` Python client (ArcGIS API for Python).

    python arcgis_client_check.py URL PACKAGE.mmpk UPDATED.mmpk OWNER OWNER_PASSWORD OTHER OTHER_PASSWORD WORKDIR

Signs in both ways the client offers (the default OAuth sign-in page it scrapes, and
generateToken), publishes a package in streamed parts and in one request, searches, reads,
downloads, updates with a new file, shares (organization, everyone, a group), checks that the
other user sees only what is shared with them, and deletes. Prints one line per check and
exits non-zero on the first failure, naming it. The test suite runs it against
`mapbook portal serve --self-signed` on 127.0.0.1.
"""

import hashlib
import json
import os
import sys
import time
import warnings
import zipfile

warnings.filterwarnings("ignore")

from arcgis.gis import GIS  # noqa: E402
from checks import check  # noqa: E402 (beside this script)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    url, package, updated, owner, owner_pw, other, other_pw, work = sys.argv[1:9]
    os.makedirs(work, exist_ok=True)
    with zipfile.ZipFile(package) as z:
        name = next(n for n in z.namelist() if n.endswith(".info") and "/" not in n)
        info = json.loads(z.read(name))

    gis = GIS(url, owner, owner_pw, verify_cert=False)
    check("sign in through the OAuth sign-in page", gis.users.me is not None and gis.users.me.username == owner)
    gen = GIS(url, owner, owner_pw, verify_cert=False, use_gen_token=True)
    check("sign in with generateToken", gen.users.me is not None and gen.users.me.username == owner)

    # Publish in streamed parts (the Folder API's default) into a new folder.
    folder = gis.content.folders.create("Field Maps", exist_ok=True)
    check("folders.create", folder is not None)
    job = folder.add({"type": "Mobile Map Package", "tags": "water,811"}, file=package)
    item = job.result()
    check("folder.add streamed parts", item is not None and item.type == "Mobile Map Package", repr(item))
    check("title, tags and extent from the package's .info", item.title == info["title"] and item.extent, f"{item.title!r} vs {info['title']!r}")
    check("item name is the file name", item.name == os.path.basename(package), item.name)
    check("item size", int(item.size) == os.path.getsize(package), str(item.size))

    # Publish in one request (stream=False, small file) to the root folder.
    root = gis.content.folders.get()
    single = root.add({"type": "Mobile Map Package", "title": "Single Upload", "tags": "single"}, file=package, stream=False).result()
    check("folder.add single request", single is not None and single.title == "Single Upload")

    found = gis.content.search(query="", item_type="Mobile Map Package", max_items=50)
    ids = {i.id for i in found}
    check("content.search finds both packages", item.id in ids and single.id in ids, str(ids))
    found = gis.content.search(query="title:\"Single Upload\"", max_items=10)
    check("content.search by title", [i.id for i in found] == [single.id], str([i.id for i in found]))

    got = gis.content.get(item.id)
    check("content.get", got is not None and got.id == item.id)
    check("content.get of a missing item is None", gis.content.get("0" * 32) is None)

    path = item.download(save_path=work)
    check("item.download", path is not None and sha256(path) == sha256(package), str(path))

    before = gis.content.get(item.id).modified
    time.sleep(0.01)
    ok = item.update(item_properties={"snippet": "Updated package"}, data=updated)
    check("item.update with a new file", ok)
    after = gis.content.get(item.id)
    check("update bumps modified", after.modified > before, f"{before} -> {after.modified}")
    check("update keeps the new snippet", after.snippet == "Updated package", str(after.snippet))
    path = after.download(save_path=os.path.join(work, "updated"))
    check("download after update is the new file", path is not None and sha256(path) == sha256(updated))

    # Another user sees nothing private, then what is shared with them.
    bob = GIS(url, other, other_pw, verify_cert=False)
    check("private item invisible to another user", bob.content.get(item.id) is None)
    check("private item absent from another user's search", item.id not in {i.id for i in bob.content.search(query="", max_items=50)})

    group = gis.groups.create(title="Field Crew", tags="crew", access="org")
    check("groups.create", group is not None and group.title == "Field Crew")
    found = gis.groups.search("Field Crew")
    check("groups.search", group.id in [g.id for g in found], str([g.id for g in found]))
    check("group sharing", item.sharing.groups.add(group))
    check("sharing to a group is not sharing with everyone", bob.content.get(item.id) is None)
    group.add_users([other])
    check("a group member sees the item", bob.content.get(item.id) is not None)

    single.sharing.sharing_level = "organization"
    check("org sharing visible to the organization", bob.content.get(single.id) is not None)
    single.sharing.sharing_level = "everyone"
    anonymous = GIS(url, verify_cert=False)
    check("public sharing visible anonymously", anonymous.content.get(single.id) is not None)
    single.sharing.sharing_level = "private"
    check("back to private", bob.content.get(single.id) is None)

    check("item.delete", single.delete())
    check("deleted item is gone", gis.content.get(single.id) is None)
    check("item.delete (in a folder)", item.delete())
    check("nothing of the owner left", len(gis.content.search(query="owner:" + owner, max_items=50)) == 0)
    check("group.delete", group.delete())
    check("folder.delete", folder.delete())
    check("folder gone", gis.content.folders.get("Field Maps") is None)
    print("all checks passed", flush=True)


if __name__ == "__main__":
    main()
