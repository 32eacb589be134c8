"""Drives a Mapbook portal's feature service with the real `arcgis` Python client.

    python arcgis_service_check.py URL OWNER OWNER_PASSWORD OTHER OTHER_PASSWORD LAYER_NAME RELATED_LAYER_NAME

Finds the Feature Service items the portal made for two published packages with editable
layers, opens the layer LAYER_NAME as the client does (item.layers), counts and queries it
(`FeatureLayer.query`: where, out_fields, paging, object ids, a geometry filter), adds,
updates and deletes features (`edit_features`), sees a value outside a domain refused per
edit, attaches a file, lists, downloads and deletes it (`attachments`), reads the records
related to a feature of RELATED_LAYER_NAME (`query_related_records`), and checks that OTHER,
with whom the items are not shared, can neither query nor edit.
Leaves one added feature (FACILITYID WV-ONLINE) for the caller to find on a device after
`mapbook sync`. Prints one line per check and exits non-zero on the first failure.
"""

import os
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")

from arcgis.features import FeatureLayer  # noqa: E402
from arcgis.geometry.filters import intersects  # noqa: E402
from arcgis.gis import GIS  # noqa: E402
from checks import check  # noqa: E402 (beside this script)


def main():
    url, owner, owner_pw, other, other_pw, layer_name, related_name = sys.argv[1:8]
    gis = GIS(url, owner, owner_pw, verify_cert=False)
    items = gis.content.search('type:"Feature Service"', max_items=10)
    check("content.search finds the Feature Service items", len(items) == 2, repr(items))
    check("the items' urls are the services", all(i.url.startswith(url) and i.url.endswith("/FeatureServer") for i in items), repr([i.url for i in items]))
    layers = [layer for item in items for layer in item.layers if layer.properties.name == layer_name]
    check("item.layers has the editable layer", len(layers) == 1, repr([l.properties.name for i in items for l in i.layers]))
    layer = layers[0]
    props = layer.properties
    check("layer properties: object id and globalid fields", props.objectIdField == "fid" and props.globalIdField == "globalid")
    domains = {f["name"]: f.get("domain") for f in props.fields}
    check("a field's coded-value domain", domains["VALVETYPE"] and domains["VALVETYPE"]["type"] == "codedValue", repr(domains["VALVETYPE"]))

    total = layer.query(where="1=1", return_count_only=True)
    check("query return_count_only", isinstance(total, int) and total > 0, repr(total))
    gates = layer.query(where="VALVETYPE = 'Gate'", out_fields="FACILITYID,VALVETYPE")
    check("query where, out_fields", len(gates.features) > 0 and all(f.attributes["VALVETYPE"] == "Gate" for f in gates.features))
    gate_count = layer.query(where="VALVETYPE = 'Gate'", return_count_only=True)
    check("the count agrees with the features", gate_count == len(gates.features), f"{gate_count} vs {len(gates.features)}")
    page = layer.query(where="1=1", out_fields="FACILITYID", order_by_fields="fid", result_offset=10, result_record_count=5)
    ids = [f.attributes["fid"] for f in page.features]
    check("query paging in fid order", len(ids) == 5 and ids == sorted(ids), repr(ids))
    first = gates.features[0]
    one = layer.query(object_ids=str(first.attributes["fid"]), out_fields="*", out_sr=4326)
    check("query object_ids, out_sr", len(one.features) == 1 and abs(one.features[0].geometry["x"]) < 180, repr(one.features[0].geometry))
    g = one.features[0].geometry
    box = {"xmin": g["x"] - 0.0001, "ymin": g["y"] - 0.0001, "xmax": g["x"] + 0.0001, "ymax": g["y"] + 0.0001, "spatialReference": {"wkid": 4326}}
    near = layer.query(geometry_filter=intersects(box, sr=4326), out_fields="FACILITYID")
    check("query with a geometry filter", first.attributes["FACILITYID"] in [f.attributes["FACILITYID"] for f in near.features], repr(len(near.features)))

    add = {
        "attributes": {"FACILITYID": "WV-ONLINE", "VALVETYPE": "Butterfly", "TURNS": 12},
        "geometry": {"x": g["x"] + 0.0005, "y": g["y"], "spatialReference": {"wkid": 4326}},
    }
    scratch = {"attributes": {"FACILITYID": "WV-SCRATCH", "VALVETYPE": "Check"}, "geometry": add["geometry"]}
    added = layer.edit_features(adds=[add, scratch])
    results = added["addResults"]
    check("edit_features adds", all(r["success"] for r in results), repr(added))
    oid = results[0]["objectId"]
    back = layer.query(object_ids=str(oid), out_fields="*", out_sr=4326).features[0]
    check("the added feature reads back, projected", back.attributes["last_edited_user"] == owner and abs(back.geometry["x"] - add["geometry"]["x"]) < 1e-7, repr(back.attributes))
    back.attributes["TURNS"] = 40
    updated = layer.edit_features(updates=[back])
    check("edit_features updates a whole feature sent back", updated["updateResults"][0]["success"], repr(updated))
    refused = layer.edit_features(updates=[{"attributes": {"fid": oid, "VALVETYPE": "Nope"}}], rollback_on_failure=False)
    error = refused["updateResults"][0].get("error") or {}
    check("a value outside the domain is refused per edit", not refused["updateResults"][0]["success"] and error.get("code") == 1011, repr(refused))
    deleted = layer.edit_features(deletes=str(results[1]["objectId"]))
    check("edit_features deletes", deleted["deleteResults"][0]["success"], repr(deleted))
    gone = layer.query(where="FACILITYID = 'WV-SCRATCH'", return_count_only=True)
    check("the deleted feature is gone", gone == 0, repr(gone))

    # Attachments, as the client's AttachmentManager drives them.
    photo = os.path.join(tempfile.mkdtemp(), "valve.jpg")
    with open(photo, "wb") as f:
        f.write(bytes([0xFF, 0xD8, 0xFF, 0xE0]) + bytes((i * 7) % 256 for i in range(20000)))
    added = layer.attachments.add(oid, photo)
    result = added.get("addAttachmentResult", {})
    check("attachments.add", result.get("success") is True, repr(added))
    listed = layer.attachments.get_list(oid)
    check("attachments.get_list", [a["name"] for a in listed] == ["valve.jpg"] and listed[0]["size"] == os.path.getsize(photo), repr(listed))
    saved = layer.attachments.download(oid, listed[0]["id"], save_path=tempfile.mkdtemp())
    saved = saved[0] if isinstance(saved, list) else saved
    with open(saved, "rb") as a, open(photo, "rb") as b:
        check("attachments.download gives the same bytes", a.read() == b.read(), str(saved))
    removed = layer.attachments.delete(oid, str(listed[0]["id"]))
    check("attachments.delete", removed["deleteAttachmentResults"][0]["success"], repr(removed))
    check("no attachment left", layer.attachments.get_list(oid) == [])

    # Related records: the inspections of a tree, and the tree of an inspection.
    trees = [layer for item in items for layer in item.layers if layer.properties.name == related_name][0]
    relationship = trees.properties.relationships[0]
    related = trees.query_related_records(object_ids="1", relationship_id=str(relationship["id"]), out_fields="*")
    groups = related.get("relatedRecordGroups", [])
    check("query_related_records", len(groups) == 1 and groups[0]["objectId"] == 1 and len(groups[0]["relatedRecords"]) >= 1, repr(related)[:300])

    outsider = GIS(url, other, other_pw, verify_cert=False)
    theirs = FeatureLayer(layer.url, outsider)
    try:
        theirs.query(where="1=1", return_count_only=True)
        check("another user cannot query a private service", False)
    except Exception as e:  # the client raises on the API's error JSON
        check("another user cannot query a private service", "not found" in str(e).lower() or "403" in str(e) or "denied" in str(e).lower(), str(e)[:200])
    try:
        r = theirs.edit_features(adds=[add])
        check("another user cannot edit", False, repr(r))
    except Exception as e:
        check("another user cannot edit", True, str(e)[:200])
    print("all checks passed", flush=True)


if __name__ == "__main__":
    main()
