import Hummingbird
import MapbookData
import MapbookEditing
import MapbookLibrary
import MapbookPortalAPI
import MapbookSupport
import MapbookViewer
import NIOCore

/// Editing from a map page, through the package's working copy as `mapbook edit` and
/// `mapbook view` edit (docs/SERVE.md): the form of an editable layer (`EditForm`), adding a
/// feature at a place, changing its fields, deleting it, attaching a file, and the edits not
/// yet synchronised. Values are checked by the same `EditValidator`; a refused edit is a 422
/// whose `kind` is `EditError`'s and whose `field` names the field, and changes nothing.
extension WebAPI {
    func registerEdits(_ router: Hummingbird.Router<BasicRequestContext>) {
        // The map's editable layers, for the page's Edit tool.
        mapRoute(router, "/editable") { map, _, _ in
            .array(map.layers.compactMap { layer -> JSONValue? in
                guard layer.isFeatureLayer, let table = EditForm.editableTable(layer, package: map.session.package) else { return nil }
                return .object(["id": .string(layer.id), "title": .string(layer.title), "table": .string(table), "shown": .bool(map.isShown(layer))])
            })
        }
        mapRoute(router, "/layers/:layer/form") { map, request, _ in
            let (layer, table) = try editable(map, request.string("layer") ?? "")
            let copy = try DeviceEdits.workingCopy(of: map.session.package, library: try library(map))
            return formJSON(try EditForm(layer, table: table, copy: copy, fid: request.query["feature"].flatMap { Int64($0) }))
        }
        mapRoute(router, "/edits") { map, _, _ in
            guard let library = map.session.library, let guid = map.session.package.manifest.guid, library.hasEditsFolder(packageGUID: guid) else { return .array([]) }
            return .array(try DeviceEdits.workingCopy(of: map.session.package, library: library).pending().map(\.jsonValue))
        }
        // Adds a feature: {"lon": X, "lat": Y, "values": {"FIELD": "text"}}.
        editRoute(router, "/layers/:layer/features") { map, layerID, _, body in
            guard let lon = body.double("lon"), let lat = body.double("lat") else { throw WebError.badRequest("give lon and lat of the new feature") }
            let place = Geometry(.point(Position(x: lon, y: lat)))
            return try change(map, layerID, place: place) { copy, table, user, now in
                try copy.add(layer: table, geometry: place, values: values(body), user: user, now: now)
            }
        }
        // Changes a feature's fields: {"values": {"FIELD": "text"}}; {"delete": true} deletes it.
        editRoute(router, "/layers/:layer/features/:feature") { map, layerID, feature, body in
            guard let fid = feature else { throw WebError.notFound("no feature given") }
            if body.bool("delete") == true {
                return try change(map, layerID) { copy, table, _, now in try copy.delete(layer: table, fid: fid, now: now) }
            }
            return try change(map, layerID) { copy, table, user, now in try copy.update(layer: table, fid: fid, values: values(body), user: user, now: now) }
        }
        // Attaches a file: the body is its bytes, `?name=` its name.
        router.post("/api/packages/:package/maps/:map/layers/:layer/features/:feature/attachments") { request, context in
            let (host, number) = try address(context)
            let layerID = FormEncoding.percentDecode(try context.parameters.require("layer").utf8) ?? ""
            guard let fid = Int64(try context.parameters.require("feature")) else { throw WebError.notFound("no such feature") }
            // A name, not a path: what follows the last slash, without control characters.
            let given = request.uri.queryParameters.get("name").map { String(FileSystem.lastComponent(String($0)).filter { !$0.isNewline && $0.asciiValue.map { $0 >= 0x20 } ?? true }) }
            let name = given.flatMap { $0.isEmpty ? nil : $0 } ?? "attachment"
            var request = request
            let bytes = Array(try await request.collectBody(upTo: 64 << 20).readableBytesView)
            let json = try host.withSession { state -> JSONValue in
                let map = try state.map(number)
                let result = try change(map, layerID) { copy, table, _, now in
                    try copy.attach(layer: table, fid: fid, bytes: bytes, name: name, contentType: WorkingCopy.contentType(forName: name), now: now)
                }
                state.dataChanged()
                return result
            }
            return WebResponses.json(json)
        }
    }

    /// A POST under the map that changes data: the map, the layer, the feature (if the path has
    /// one) and the JSON body; the package's data is read again after it.
    func editRoute(
        _ router: Hummingbird.Router<BasicRequestContext>, _ suffix: String,
        _ body: @escaping @Sendable (ViewerMap, String, Int64?, JSONObject) throws -> JSONValue
    ) {
        router.post(RouterPath("/api/packages/:package/maps/:map" + suffix)) { request, context in
            let (host, number) = try address(context)
            let layerID = FormEncoding.percentDecode(try context.parameters.require("layer").utf8) ?? ""
            let feature = context.parameters.get("feature").flatMap { Int64($0) }
            let object = try await Self.body(request)
            let json = try host.withSession { state -> JSONValue in
                let result = try body(try state.map(number), layerID, feature, object)
                state.dataChanged()
                return result
            }
            return WebResponses.json(json)
        }
    }

    func library(_ map: ViewerMap) throws -> DeviceLibrary {
        guard let library = map.session.library else { throw WebError.badRequest("editing needs the device library") }
        return library
    }

    func editable(_ map: ViewerMap, _ layerID: String) throws -> (ViewerLayer, String) {
        let layer = try map.layer(named: layerID)
        guard let table = EditForm.editableTable(layer, package: map.session.package) else {
            throw WebError(status: .forbidden, kind: "notEditable", message: "'\(layer.title)' is not editable")
        }
        return (layer, table)
    }

    /// One edit through `DeviceEdits.edit`, answered with what it changed.
    func change(
        _ map: ViewerMap, _ layerID: String, place: Geometry? = nil, _ body: (WorkingCopy, String, String, Int64) throws -> WorkingCopy.Change
    ) throws -> JSONValue {
        let (_, table) = try editable(map, layerID)
        let library = try library(map)
        let user = DeviceEdits.user(library: library), now = DeviceEdits.now()
        let done = try DeviceEdits.edit(map.session.package, layer: table, place: place, library: library) { copy, table in
            try body(copy, table, user, now)
        }
        return done.jsonValue
    }

    /// `{"values": {"FIELD": "text"}}` as `--set FIELD=text` pairs.
    func values(_ body: JSONObject) -> [(field: String, text: String)] {
        (body.object("values") ?? [:]).map { key, value in
            switch value {
            case .string(let s): return (key, s)
            case .null: return (key, "")
            default: return (key, JSONWriter.string(value, style: .compact).trimmingTrailingNewline())
            }
        }
    }

    func formJSON(_ form: EditForm) -> JSONValue {
        var o: JSONObject = [
            "table": .string(form.table), "layerTitle": .string(form.layerTitle), "isPointLayer": .bool(form.isPointLayer),
            "fields": .array(form.fields.map { f in
                var field: JSONObject = [
                    "name": .string(f.name), "label": .string(f.label), "text": .string(f.text), "hint": .string(f.hint),
                    "required": .bool(f.required), "type": .string(f.type.rawValue),
                ]
                if let choices = f.choices { field["choices"] = .array(choices.map { .string($0) }) }
                return .object(field)
            }),
        ]
        if let fid = form.fid { o["fid"] = .integer(fid) }
        return .object(o)
    }
}
