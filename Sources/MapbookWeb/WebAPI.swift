#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Hummingbird
import MapbookData
import MapbookPackage
import MapbookPortalAPI
import MapbookRender
import MapbookRouting
import MapbookSearch
import MapbookSupport
import MapbookViewer
import NIOCore

/// The JSON API under `/api/` that the pages use, one endpoint per thing a page shows or
/// does (docs/SERVE.md). Answers come from the same library code as the commands': the
/// table of contents and legend from `ViewerReport`, search from the package's composite
/// locator with this device's edits, pop-ups from `PopupFormatter`, routes from `Router` and
/// `RouteOutput`.
struct WebAPI: Sendable {
    let catalog: WebCatalog

    func register(_ router: Hummingbird.Router<BasicRequestContext>) {
        router.get("/api/packages") { _, _ in
            WebResponses.json(.array(catalog.listings().map(listing)))
        }
        router.get("/api/packages/:package") { _, context in
            let host = try catalog.host(try context.parameters.require("package"))
            guard let listing = catalog.listings().first(where: { $0.key == host.key }) else { throw WebError.notFound("no package '\(host.key)'") }
            return WebResponses.json(self.listing(listing))
        }
        mapRoute(router, "") { map, request, number in
            try mapJSON(map, number: number, width: request.pixels("width") ?? 1024, height: request.pixels("height") ?? 768)
        }
        mapRoute(router, "/style.json") { map, request, number in
            .object(try MapStyle.style(map, host: request.host, state: request.state, number: number, base: "/packages/\(FormEncoding.percentEncode(request.host.key))/maps/\(number)"))
        }
        mapRoute(router, "/layers") { map, request, _ in
            layersJSON(map, zoom: request.double("zoom"))
        }
        router.post("/api/packages/:package/maps/:map/layers") { request, context in
            let body = try await Self.body(request)
            let (host, number) = try address(context)
            let json = try host.withSession { state -> JSONValue in
                let map = try state.map(number)
                if body.bool("reset") == true {
                    try map.resetVisibility()
                } else {
                    guard let id = body.string("layer") else { throw WebError.badRequest("give {\"layer\": ID, \"visible\": true or false}") }
                    let visible: Bool? = body["visible"] == .null ? nil : body.bool("visible")
                    _ = try map.setVisibility([(layer: id, visible: visible)])
                }
                return layersJSON(map, zoom: nil)
            }
            return WebResponses.json(json)
        }
        mapRoute(router, "/legend") { map, request, _ in
            legendJSON(map, base: "/api/packages/\(FormEncoding.percentEncode(request.host.key))/maps/\(request.number)")
        }
        router.get("/api/packages/:package/maps/:map/legend/:layer/:section/:entry") { _, context in
            let (host, number) = try address(context)
            let layerID = FormEncoding.percentDecode(try context.parameters.require("layer").utf8) ?? ""
            var entryText = try context.parameters.require("entry")
            if entryText.hasSuffix(".png") { entryText.removeLast(4) }
            guard let section = Int(try context.parameters.require("section")), let entry = Int(entryText) else { throw WebError.notFound("no such legend entry") }
            let png = try host.withSession { state -> [UInt8] in
                let layer = try state.map(number).layer(named: layerID)
                let sections = layer.legend
                guard sections.indices.contains(section), sections[section].entries.indices.contains(entry) else { throw WebError.notFound("no such legend entry") }
                return try MapDrawing.swatch(for: sections[section].entries[entry].symbol, width: 20, height: 20).pngData()
            }
            return WebResponses.bytes(png, type: "image/png", cache: "no-cache")
        }
        router.get("/api/packages/:package/maps/:map/layers/:layer/features/:feature/attachments/:attachment") { _, context in
            let (host, number) = try address(context)
            let layerID = FormEncoding.percentDecode(try context.parameters.require("layer").utf8) ?? ""
            guard let feature = Int64(try context.parameters.require("feature")), let id = Int64(try context.parameters.require("attachment")) else {
                throw WebError.notFound("no such attachment")
            }
            let found = try host.withSession { state in
                let map = try state.map(number)
                return try map.attachment(layer: try map.layer(named: layerID), featureID: feature, attachmentID: id)
            }
            guard let found else { throw WebError.notFound("feature \(feature) of \(layerID) has no attachment \(id)") }
            // Shown in the page, never run: a stored file's own type is not trusted beyond images.
            let type = found.contentType.hasPrefix("image/") && found.contentType != "image/svg+xml" ? found.contentType : "application/octet-stream"
            var response = WebResponses.bytes(found.bytes, type: type, cache: "no-cache")
            response.headers[.contentDisposition] = (type == "application/octet-stream" ? "attachment" : "inline") + "; filename=\"\(found.name.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline })\""
            return response
        }
        mapRoute(router, "/bookmarks") { map, request, _ in
            .array(map.bookmarks.map { bookmarkJSON($0, map: map, width: request.pixels("width") ?? 1024, height: request.pixels("height") ?? 768) })
        }
        mapRoute(router, "/suggest") { map, request, _ in
            let text = request.string("text") ?? ""
            guard !text.trimmingWhitespace().isEmpty else { return .array([]) }
            guard let locator = try request.state.compositeLocator() else { return .array([]) }
            let near = request.near ?? map.session.package.manifest.extent.map { ($0.center.x, $0.center.y) }
            return try SearchReport.suggestions(locator, text, near: near, max: min(max(request.int("max") ?? 8, 1), 50)).json
        }
        mapRoute(router, "/search") { map, request, _ in
            let text = request.string("text") ?? ""
            guard let locator = try request.state.compositeLocator() else {
                throw WebError(status: .notFound, kind: "noLocator", message: "the package has no locator to search")
            }
            let near = request.near ?? map.session.package.manifest.extent.map { ($0.center.x, $0.center.y) }
            let candidates = try locator.geocode(text, near: near, max: min(max(request.int("max") ?? 10, 1), 100))
            let popups = try map.popups(for: candidates)
            return .object([
                "candidates": .array(candidates.map(\.jsonValue)),
                "popups": .array(popups.map { popupJSON($0, map: map, request: request) }),
            ])
        }
        mapRoute(router, "/identify") { map, request, _ in
            guard let lon = request.double("lon"), let lat = request.double("lat"), let zoom = request.double("zoom") else {
                throw WebError.badRequest("give lon, lat and zoom (and width and height in pixels)")
            }
            let width = request.pixels("width") ?? 1024, height = request.pixels("height") ?? 768
            let point = try map.fromLongitudeLatitude(Position(x: lon, y: lat))
            let center = try map.fromLongitudeLatitude(Position(x: request.double("centerLon") ?? lon, y: request.double("centerLat") ?? lat))
            let view = try MapView(center: center, scale: MapStyle.scaleAtZoomZero / pow(2, zoom), width: width, height: height, dpi: 96, metresPerUnit: map.metresPerUnit)
            let report = map.identify(at: point, view: view, tolerance: request.double("tolerance") ?? 6, limit: 20)
            return .object([
                "results": .array(report.results.map { result in
                    var o = ViewerReport.identify(result).objectValue ?? [:]
                    o["popup"] = popupJSON(result.popup, map: map, request: request)
                    if let geometry = result.geometry, let lonLat = try? lonLatGeometry(geometry, map: map) { o["geometry"] = lonLat }
                    return .object(o)
                }),
                "skipped": .array(report.skipped.map { .object(["layer": .string($0.layer), "reason": .string($0.reason)]) }),
            ])
        }
        mapRoute(router, "/route") { map, request, _ in
            guard let from = request.string("from"), let to = request.string("to") else { throw WebError.badRequest("give from and to: LON,LAT or text to search") }
            guard let library = map.session.library else { throw WebError.badRequest("routing needs the device library") }
            let solved = try SolvedRoute([from, to], package: map.session.package, library: library, by: request.string("by") == "distance" ? .distance : .time)
            return .object(["solve": solved.solveResponse, "lines": .array(solved.lines.map { .string($0) })])
        }
    }

    // MARK: - Helpers

    struct MapRequest {
        let host: PackageHost
        let state: PackageHost.State
        let number: Int
        let query: [String: String]

        func string(_ key: String) -> String? { query[key] }
        func double(_ key: String) -> Double? { query[key].flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil } }
        func int(_ key: String) -> Int? { query[key].flatMap { Int($0) } }
        /// A page's size in CSS pixels, 1 to 4096.
        func pixels(_ key: String) -> Int? { double(key).map { min(max(Int($0.rounded()), 1), 4096) } }
        /// `near=LON,LAT`: where search prefers results.
        var near: (Double, Double)? {
            guard let parts = query["near"]?.split(separator: ","), parts.count == 2, let lon = Double(parts[0]), let lat = Double(parts[1]) else { return nil }
            return (lon, lat)
        }
    }

    /// A GET under `/api/packages/KEY/maps/N` answered with JSON from the map, alone on its package.
    func mapRoute(_ router: Hummingbird.Router<BasicRequestContext>, _ suffix: String, _ body: @escaping @Sendable (ViewerMap, MapRequest, Int) throws -> JSONValue) {
        router.get(RouterPath("/api/packages/:package/maps/:map" + suffix)) { request, context in
            let (host, number) = try address(context)
            var query: [String: String] = [:]
            for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
            // Path parameters (a layer's id) over the query's, decoded.
            for (key, value) in context.parameters where key != "package" && key != "map" {
                query[String(key)] = FormEncoding.percentDecode(value.utf8) ?? String(value)
            }
            let json = try host.withSession { state -> JSONValue in
                let map = try state.map(number)
                return try body(map, MapRequest(host: host, state: state, number: number, query: query), number)
            }
            return WebResponses.json(json)
        }
    }

    func address(_ context: BasicRequestContext) throws -> (PackageHost, Int) {
        let host = try catalog.host(try context.parameters.require("package"))
        guard let number = Int(try context.parameters.require("map")), number >= 1 else { throw WebError.notFound("maps are numbered from 1") }
        return (host, number)
    }

    static func body(_ request: Request) async throws -> JSONObject {
        var request = request
        let buffer = try await request.collectBody(upTo: 1 << 20)
        let bytes = Array(buffer.readableBytesView)
        guard !bytes.isEmpty else { return [:] }
        guard let object = try? JSONParser.parse(bytes).objectValue else { throw WebError.badRequest("the body must be a JSON object") }
        return object
    }

    func listing(_ l: WebCatalog.Listing) -> JSONValue {
        var o: JSONObject = [
            "key": .string(l.key), "title": .string(l.title), "summary": .string(l.summary), "size": .int(Int(l.size)),
            "maps": .array(l.maps.map { .string($0) }), "updateAvailable": .bool(l.updateAvailable), "updateRequired": .bool(l.updateRequired), "path": .string(l.path),
        ]
        if let problem = l.problem { o["problem"] = .string(problem) }
        if let expiration = l.expiration {
            var e: JSONObject = ["type": .string(expiration.kind == .preventExpiredAccess ? "preventExpiredAccess" : "allowExpiredAccess")]
            if let when = expiration.dateTime { e["date"] = .string(ISODate.format(milliseconds: when)) }
            if let message = expiration.message { e["message"] = .string(message) }
            o["expiration"] = .object(e)
        }
        return .object(o)
    }

    /// The map as a page of `width` x `height` pixels starts: its name, where it looks,
    /// layers, bookmarks, base maps and what it can do.
    func mapJSON(_ map: ViewerMap, number: Int, width: Int, height: Int) throws -> JSONValue {
        var o: JSONObject = ["name": .string(map.name), "number": .int(number)]
        if let view = try? map.initialView(width: width, height: height), let bounds = try? lonLatBounds(view.extent, map: map) { o["bounds"] = bounds }
        o["layers"] = layersJSON(map, zoom: nil)
        o["bookmarks"] = .array(map.bookmarks.map { bookmarkJSON($0, map: map, width: width, height: height) })
        o["basemaps"] = .array(PackageHost.tiledBaseMaps(map).enumerated().map { i, layer in
            .object(["id": .string("basemap:\(i)"), "title": .string(layer.title), "visible": .bool(layer.isVisible)])
        })
        o["hasLocator"] = .bool(map.session.package.archive.entries.contains { $0.name.hasSuffix(".loc.json") })
        o["hasNetwork"] = .bool(map.session.package.archive.entries.contains { $0.name.hasSuffix(".mnet") })
        return .object(o)
    }

    func layersJSON(_ map: ViewerMap, zoom: Double?) -> JSONValue {
        let scale = zoom.map { MapStyle.scaleAtZoomZero / pow(2, $0) }
        return .array(map.layers.map { layer in
            var o = ViewerReport.layer(layer, scale: scale).objectValue ?? [:]
            o["shown"] = .bool(map.isShown(layer))
            o["isFeatureLayer"] = .bool(layer.isFeatureLayer)
            return .object(o)
        })
    }

    func legendJSON(_ map: ViewerMap, base: String) -> JSONValue {
        .array(map.legendLayers.map { layer in
            let sections: [JSONValue] = layer.legend.enumerated().map { s, section in
                var o: JSONObject = [:]
                if let heading = section.heading { o["field"] = .string(heading) }
                o["entries"] = .array(section.entries.enumerated().map { e, entry in
                    .object([
                        "label": .string(entry.label), "description": .string(entry.symbol.legendDescription),
                        "swatch": .string("\(base)/legend/\(FormEncoding.percentEncode(layer.id))/\(s)/\(e).png"),
                    ])
                })
                return .object(o)
            }
            return .object(["id": .string(layer.id), "title": .string(layer.title), "legend": .array(sections)])
        })
    }

    func bookmarkJSON(_ bookmark: Bookmark, map: ViewerMap, width: Int, height: Int) -> JSONValue {
        var o: JSONObject = ["name": .string(bookmark.name ?? "(unnamed)")]
        if let view = try? map.view(of: bookmark, width: width, height: height), let bounds = try? lonLatBounds(view.extent, map: map) { o["bounds"] = bounds }
        return .object(o)
    }

    /// `[west, south, east, north]` in degrees.
    func lonLatBounds(_ box: BoundingBox, map: ViewerMap) throws -> JSONValue {
        try PackageHost.lonLatBounds(box, map: map)
    }

    /// A geometry of the map's spatial reference as GeoJSON in degrees, for highlighting.
    func lonLatGeometry(_ geometry: Geometry, map: ViewerMap) throws -> JSONValue {
        var failed = false
        let g = geometry.mapPositions { p in
            guard let q = try? map.toLongitudeLatitude(p) else {
                failed = true
                return p
            }
            return q
        }
        if failed { throw WebError.badRequest("the feature has no place in degrees") }
        return g.geoJSON
    }

    /// A pop-up with its attachments' URLs.
    func popupJSON(_ popup: Popup, map: ViewerMap, request: MapRequest) -> JSONValue {
        var o: JSONObject = [
            "layer": .string(popup.layerID), "layerTitle": .string(popup.layerTitle), "featureId": .int(Int(popup.featureID)), "title": .string(popup.title),
            "fields": .array(popup.fields.map { .object(["name": .string($0.name), "label": .string($0.label), "value": .string($0.value)]) }),
        ]
        if let text = popup.text { o["text"] = .string(text) }
        o["related"] = .array(popup.related.map { related in
            .object([
                "table": .string(related.table),
                "records": .array(related.records.map { record in
                    .object(["id": .int(Int(record.id)), "fields": .array(record.fields.map { .object(["label": .string($0.label), "value": .string($0.value)]) })])
                }),
            ])
        })
        o["attachments"] = .array(popup.attachments.map { a in
            .object([
                "id": .int(Int(a.id)), "name": .string(a.name), "contentType": .string(a.contentType), "size": .int(Int(a.size)),
            ])
        })
        return .object(o)
    }
}
