import HTTPTypes
import Hummingbird
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import MapbookWeb
import NIOCore
import NIOPosix

extension PortalRoutes {
    /// An item page's live map preview (docs/PORTAL.md "Map previews"): a package's map drawn
    /// by MapLibre as `mapbook serve` draws it (MapbookWeb's `PackageHost`: the base maps'
    /// own styles and tiles, the feature layers as tiles made on request with their renderers),
    /// read in place from the stored file: on disk, or by ranged reads from the bucket. Under
    /// `/home/items/ID/maps/N/`; every request checks that the visitor may see the item, so
    /// a private item's map leaves no trace for others.
    static func mapPreview(_ router: Router<PortalContext>, _ portal: Portal, _ pages: PortalPages) {
        let base = "/home/items/:id/maps/:n"
        page(router, "\(base)/style.json", portal, pages) { call, context in
            let (record, host, number) = try await previewMap(call, context, portal)
            let path = "/home/items/\(record.item.id)/maps/\(number)"
            let style = try await preview { () -> JSONValue in
                guard case .object(var style) = try host.style(map: number, base: path, glyphs: "/home/glyphs/{fontstack}/{range}.pbf") else { return .null }
                // Where the map opens, for the page to fit (a style has a centre and a zoom, not a box).
                if let bounds = try host.initialBounds(map: number, width: 800, height: 450) {
                    var metadata = style.object("metadata") ?? [:]
                    metadata["mapbook:bounds"] = bounds
                    style["metadata"] = .object(metadata)
                }
                return .object(style)
            }
            var response = PortalResponse.json(style)
            response.headers[.cacheControl] = "private, no-cache"
            return response
        }
        page(router, "\(base)/basemaps/:b/tiles/:z/:x/:y", portal, pages) { call, context in
            let (_, host, number) = try await previewMap(call, context, portal)
            let index = try previewNumber(context, "b", from: 0)
            let tile = try previewTile(context)
            let bytes = try await preview { try host.baseMapTile(map: number, index: index, tile: tile) }
            return PortalResponse.tile(bytes, cache: "private, max-age=3600")
        }
        page(router, "\(base)/basemaps/:b/resources/**", portal, pages) { call, context in
            let (_, host, number) = try await previewMap(call, context, portal)
            let index = try previewNumber(context, "b", from: 0)
            let path = context.parameters.getCatchAll().map { FormEncoding.percentDecode($0.utf8) ?? String($0) }.joined(separator: "/")
            guard let bytes = try await preview({ try host.baseMapResource(map: number, index: index, path: path) }) else {
                throw PageError(kind: .notFound, heading: "Not found", message: "The base map has no resources/\(path).")
            }
            var response = PortalResponse.bytes(bytes, contentType: contentType(path), name: FileSystem.lastComponent(path))
            response.headers[.cacheControl] = "private, max-age=3600"
            return response
        }
        page(router, "\(base)/layers/:layer/tiles/:z/:x/:y", portal, pages) { call, context in
            let (_, host, number) = try await previewMap(call, context, portal)
            let raw = try context.parameters.require("layer")
            let layer = FormEncoding.percentDecode(raw.utf8) ?? raw
            let tile = try previewTile(context)
            let bytes = try await preview { try host.featureTile(map: number, layer: layer, tile: tile) }
            return PortalResponse.tile(bytes, cache: "private, no-cache")
        }
        // Glyphs for feature labels on a map without a vector base map, from the installed fonts.
        page(router, "/home/glyphs/:stack/:range", portal, pages) { _, context in
            let raw = try context.parameters.require("stack"), range = try context.parameters.require("range")
            guard let bytes = try await preview({ PackageHost.glyphs(stack: FormEncoding.percentDecode(raw.utf8) ?? raw, range: range) }) else {
                throw PageError(kind: .notFound, heading: "Not found", message: "No such glyph range (START-END.pbf, 256 code points).")
            }
            var response = PortalResponse.bytes(bytes, contentType: "application/x-protobuf", name: "glyphs.pbf")
            response.headers[.cacheControl] = "public, max-age=86400"
            return response
        }
    }

    /// The item, its package's maps and the map number a preview URL names; not found alike
    /// when the item is missing, hidden from the visitor, not a package, or has no such map.
    static func previewMap(_ call: PageRequest, _ context: PortalContext, _ portal: Portal) async throws -> (ItemRecord, PackageHost, Int) {
        let record = try await pageItem(try context.parameters.require("id"), call, portal)
        let number = try previewNumber(context, "n", from: 1)
        guard record.item.type == PackageManifest.mobileMapPackageType, let opened = try await portal.openPackage(record) else {
            throw PageError(kind: .notFound, heading: "No map", message: "This item has no map to preview.")
        }
        let host = try await preview { try opened.maps() }
        guard number <= host.mapCount else { throw PageError(kind: .notFound, heading: "No map", message: "The package has no map \(number).") }
        return (record, host, number)
    }

    static func previewNumber(_ context: PortalContext, _ name: String, from first: Int) throws -> Int {
        guard let number = Int(try context.parameters.require(name)), number >= first, number < 1 << 20 else {
            throw PageError(kind: .notFound, heading: "Not found", message: "There is no such map or base map.")
        }
        return number
    }

    static func previewTile(_ context: PortalContext) throws -> TileCoordinate {
        do {
            return try PackageHost.tile(z: try context.parameters.require("z"), x: try context.parameters.require("x"), y: try context.parameters.require("y"))
        } catch let error as WebError {
            throw PageError(kind: .badRequest, heading: "Not a tile", message: error.message)
        }
    }

    /// Runs a read of the package on the thread pool (it may wait for the bucket), with the
    /// viewer's errors as pages: what does not exist is not found, what is damaged a failure.
    static func preview<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await NIOThreadPool.singleton.runIfActive(body)
        } catch let error as PageError {
            throw error
        } catch {
            let web = WebError.from(error)
            if web.status == .notFound { throw PageError(kind: .notFound, heading: "Not found", message: web.message) }
            if web.status == .badRequest { throw PageError(kind: .badRequest, heading: "Request refused", message: web.message) }
            throw error
        }
    }
}
