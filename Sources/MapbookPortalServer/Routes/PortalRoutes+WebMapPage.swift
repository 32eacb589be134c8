import HTTPTypes
import Hummingbird
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import MapbookWeb
import NIOCore
import NIOPosix

extension PortalRoutes {
    /// A web map in a full map page (docs/PORTAL.md "The map viewer"): the online work mode in
    /// the browser. The base map is the package's own, drawn as the item page's preview draws
    /// it; the operational layers come from the feature services as they are now (GeoJSON by
    /// `query`, for the area in view), so online edits show at once. Clicking a feature shows
    /// its attributes; the search box searches the layers' text fields; those allowed to edit
    /// the service change, add and delete features through `applyEdits`, as any ArcGIS client.
    static func webMapPages(_ router: Router<PortalContext>, _ portal: Portal, _ pages: PortalPages) {
        page(router, "/home/webmap.html", portal, pages) { call in
            let online = try await onlineMap(call, call["id"] ?? "", portal)
            let canEdit = try await portal.canEdit(online.service, call.user)
            let values: [String: Any] = [
                "title": online.webMap.item.title, "id": online.webMap.item.id, "itemHref": "/home/item.html?id=\(online.webMap.item.id)",
                "style": "/home/webmaps/\(online.webMap.item.id)/style.json", "data": "/sharing/rest/content/items/\(online.webMap.item.id)/data",
                "canEdit": canEdit, "hasMapLibre": pages.hasMapLibre,
            ]
            return PortalResponse.html(pages.render("webmap", values, frame: call.frame))
        }
        page(router, "/home/webmaps/:id/style.json", portal, pages) { call, context in
            let online = try await onlineMap(call, try context.parameters.require("id"), portal)
            let layers = try await webMapLayers(online.webMap, portal)
            let path = "/home/items/\(online.package.item.id)/maps/\(online.number)"
            let style = try await preview { () -> JSONValue in
                guard case .object(let style) = try online.host.style(map: online.number, base: path, glyphs: "/home/glyphs/{fontstack}/{range}.pbf") else { return .null }
                return .object(onlineStyle(
                    style, layers: layers, labels: try online.host.featureLabels(map: online.number),
                    bounds: try online.host.initialBounds(map: online.number, width: 1280, height: 800)))
            }
            var response = PortalResponse.json(style)
            response.headers[.cacheControl] = "private, no-cache"
            return response
        }
    }

    /// A web map, the package it was made from, that package's map it shows (opened for
    /// drawing) and its Feature Service item; not found alike when any is missing or hidden.
    struct OnlineMap {
        var webMap: ItemRecord
        var package: ItemRecord
        var service: ItemRecord
        var host: PackageHost
        var number: Int
    }

    static func onlineMap(_ call: PageRequest, _ id: String, _ portal: Portal) async throws -> OnlineMap {
        let webMap = try await pageItem(id, call, portal)
        let noMap = PageError(kind: .notFound, heading: "No map", message: "This item is not a web map this portal can show.")
        guard webMap.item.type == Portal.webMapType, let packageId = Portal.madeFrom(webMap),
            let package = try? await pageItem(packageId, call, portal), let service = try await portal.store.item(Portal.serviceItemId(packageId)),
            let opened = try await portal.openPackage(package)
        else { throw noMap }
        let host = try await preview { try opened.maps() }
        // The map whose web map this is, by the id its entry gives.
        let entries = opened.package.mapEntries
        guard let index = entries.firstIndex(where: { Portal.webMapItemId(packageId, entry: $0.name) == webMap.item.id }), index < host.mapCount else { throw noMap }
        return OnlineMap(webMap: webMap, package: package, service: service, host: host, number: index + 1)
    }

    /// The web map's operational layers that are feature service layers: id, title and the
    /// service layer's path on this portal.
    static func webMapLayers(_ webMap: ItemRecord, _ portal: Portal) async throws -> [(id: String, title: String, path: String)] {
        guard let name = webMap.item.name, let file = try await portal.files.dataFile(itemId: webMap.item.id, version: webMap.dataVersion, fileName: name, size: nil),
            file.size < 16 << 20
        else { return [] }
        var bytes: [UInt8] = []
        try await portal.files.read(file, range: nil) { bytes += $0.readableBytesView }
        guard let json = (try? JSONParser.parse(bytes))?.objectValue else { return [] }
        var found: [(id: String, title: String, path: String)] = []
        func walk(_ layers: [JSONValue]) {
            for case .object(let layer) in layers {
                if let children = layer.array("layers") { walk(children) }
                guard let id = layer.string("id"), let url = layer.string("url"), let at = url.range(of: servicesPrefix + "/") else { continue }
                // The service's path on this portal, whatever host the web map was made through;
                // only a feature service layer's (the page sends its session's requests there).
                let path = String(url[at.lowerBound...])
                let parts = path.dropFirst(servicesPrefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 3, PortalPaths.isItemId(String(parts[0])), parts[1] == "FeatureServer", Int(parts[2]) != nil else { continue }
                found.append((id, layer.string("title") ?? id, path))
            }
        }
        walk(json.array("operationalLayers") ?? [])
        return found
    }

    /// The package map's style made online: each of the web map's layers is a GeoJSON source
    /// the page fills from its feature service (`metadata["mapbook:online"]`), drawn with the
    /// same style layers; layers the web map does not have are left out. The tiles carried
    /// each label's text made; online the page makes it from the features' fields by the
    /// label's parts (text, and fields by value or coded name) given with the layer. A label
    /// class's `where` goes with it: the page asks the service which features in view it
    /// selects (`returnIdsOnly`), as the tiles were made from the features it selects.
    static func onlineStyle(
        _ style: JSONObject, layers: [(id: String, title: String, path: String)], labels: [(layer: String, attribute: String, labelClass: LabelClass)],
        bounds: JSONValue?
    ) -> JSONObject {
        var out = style
        var sources = style.object("sources") ?? [:]
        let online = Set(layers.map { "layer:" + $0.id })
        for name in sources.keys where name.hasPrefix("layer:") {
            sources[name] = online.contains(name) ? ["type": "geojson", "data": ["type": "FeatureCollection", "features": []]] : nil
        }
        out["sources"] = .object(sources)
        let labelLayers = Set(labels.map { "layer:\($0.layer):\($0.attribute)" })
        out["layers"] = .array((style.array("layers") ?? []).compactMap { value -> JSONValue? in
            guard case .object(var layer) = value, let source = layer.string("source"), source.hasPrefix("layer:") else { return value }
            guard online.contains(source), layer.string("type") != "symbol" || layer.string("id") == source || labelLayers.contains(layer.string("id") ?? "") else { return nil }
            layer["source-layer"] = nil
            return .object(layer)
        })
        func parts(_ labelClass: LabelClass) -> JSONValue {
            .array(labelClass.parts.map { part in
                switch part {
                case .text(let text): return ["text": .string(text)]
                case .field(let name, let domainName): return ["field": .string(name), "coded": .bool(domainName || labelClass.useCodedValues)]
                }
            })
        }
        var metadata = style.object("metadata") ?? [:]
        metadata["mapbook:online"] = .array(layers.map { layer in
            .object([
                "id": .string(layer.id), "title": .string(layer.title), "url": .string(layer.path), "source": .string("layer:" + layer.id),
                "labels": .array(labels.filter { $0.layer == layer.id }.map { label in
                    var out: JSONObject = ["attribute": .string(label.attribute), "parts": parts(label.labelClass)]
                    if let clause = label.labelClass.whereClause?.trimmingWhitespace(), !clause.isEmpty { out["where"] = .string(clause) }
                    return .object(out)
                }),
            ])
        })
        if let bounds { metadata["mapbook:bounds"] = bounds }
        out["metadata"] = .object(metadata)
        return out
    }
}
