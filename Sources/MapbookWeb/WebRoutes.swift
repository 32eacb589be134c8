import HTTPTypes
import Hummingbird
import MapbookData
import MapbookPackage
import MapbookPortalAPI
import MapbookRender
import MapbookRouting
import MapbookSearch
import MapbookSupport
import MapbookTiles
import MapbookViewer

/// The pages, their files, the tiles and the JSON API (docs/SERVE.md). A package is
/// `/packages/KEY/`, its map N (from 1) `/packages/KEY/maps/N/`; the API mirrors them under
/// `/api/`. Each answer comes from the viewer's library code, as the commands' do.
struct WebRoutes: Sendable {
    let catalog: WebCatalog
    let pages: WebPages
    let assets: WebAssets
    let glyphs = FallbackGlyphs()

    func register(_ router: Hummingbird.Router<BasicRequestContext>) {
        // Pages.
        router.get("/") { _, _ in
            WebResponses.page(pages.library(catalog.listings(), libraryRoot: catalog.library?.root))
        }
        router.get("/packages/:package/") { _, context in
            let host = try catalog.host(try context.parameters.require("package"))
            let notice = try? host.withSession { try $0.session.package.expirationNotice() }
            let html = try host.withSession { pages.maps($0.session, key: host.key, notice: notice ?? nil) }
            return WebResponses.page(html)
        }
        router.get("/packages/:package/maps/:map/") { _, context in
            let (host, number) = try mapAddress(context)
            let notice = try? host.withSession { try $0.session.package.expirationNotice() }
            let html = try host.withSession { pages.map(try $0.map(number), key: host.key, number: number, notice: notice ?? nil) }
            return WebResponses.page(html)
        }
        router.get("/packages/:package/thumbnail") { _, context in
            let host = try catalog.host(try context.parameters.require("package"))
            let uri = try host.withSession { $0.session.package.manifest.thumbnail }
            return try image(uri)
        }
        router.get("/packages/:package/maps/:map/thumbnail") { _, context in
            let (host, number) = try mapAddress(context)
            let uri = try host.withSession { try $0.map(number).mobileMap.item.thumbnail }
            return try image(uri)
        }

        // The application's own files.
        router.get("/static/**") { _, context in
            try assets.response(context.parameters.getCatchAll().joined(separator: "/"))
        }
        router.get("/sw.js") { _, _ in try assets.response("sw.js") }
        router.get("/manifest.webmanifest") { _, _ in try assets.response("manifest.webmanifest") }

        // Tiles and base map resources.
        router.get("/packages/:package/maps/:map/basemaps/:index/tiles/:z/:x/:y") { _, context in
            let (host, number) = try mapAddress(context)
            let files = try host.backdrop(map: number, index: try context.parameters.require("index", as: Int.self))
            let tile = try tileCoordinate(context)
            return WebResponses.tile(try files.tile(tile), cache: "public, max-age=86400")
        }
        router.get("/packages/:package/maps/:map/basemaps/:index/resources/**") { _, context in
            let (host, number) = try mapAddress(context)
            let files = try host.backdrop(map: number, index: try context.parameters.require("index", as: Int.self))
            let path = context.parameters.getCatchAll().map { FormEncoding.percentDecode($0.utf8) ?? String($0) }.joined(separator: "/")
            if let bytes = try files.package.resource(path) {
                return WebResponses.bytes(bytes, type: WebResponses.contentType(ofPath: path), cache: "public, max-age=86400")
            }
            // A font the package does not ship: MapLibre fails a whole tile whose labels lack
            // glyphs, so the glyphs are drawn here from the installed fonts instead.
            if let glyphs = glyphs.range(forPath: path) {
                return WebResponses.bytes(glyphs, type: "application/x-protobuf", cache: "public, max-age=86400")
            }
            throw WebError.notFound("the base map has no resources/\(path)")
        }
        // Glyphs for feature labels on a map without a vector base map, from the installed fonts.
        router.get("/glyphs/:stack/:range") { _, context in
            let stack = try decoded(context, "stack")
            guard let bytes = glyphs.range(forPath: "fonts/\(stack)/" + (try context.parameters.require("range"))) else {
                throw WebError.notFound("no glyph range \(try context.parameters.require("range")) (START-END.pbf, 256 code points)")
            }
            return WebResponses.bytes(bytes, type: "application/x-protobuf", cache: "public, max-age=86400")
        }
        router.get("/packages/:package/maps/:map/layers/:layer/tiles/:z/:x/:y") { _, context in
            let (host, number) = try mapAddress(context)
            let layerID = try decoded(context, "layer")
            let tile = try tileCoordinate(context)
            let bytes = try host.withSession { state -> [UInt8] in
                let map = try state.map(number)
                return try map.featureTile(try map.layer(named: layerID), tile: tile)
            }
            // Made from the data as it is now: edits show at once.
            return WebResponses.tile(bytes, cache: "no-cache")
        }

        let api = WebAPI(catalog: catalog)
        api.register(router)
        api.registerEdits(router)
        api.registerSync(router)
        api.registerTakeOffline(router)
    }

    func mapAddress(_ context: BasicRequestContext) throws -> (PackageHost, Int) {
        try WebAPI(catalog: catalog).address(context)
    }

    func decoded(_ context: BasicRequestContext, _ name: String) throws -> String {
        let raw = try context.parameters.require(name)
        return FormEncoding.percentDecode(raw.utf8) ?? raw
    }

    /// `z/x/y` with `y` as `Y.pbf` or `Y`.
    func tileCoordinate(_ context: BasicRequestContext) throws -> TileCoordinate {
        var yText = try context.parameters.require("y")
        if yText.hasSuffix(".pbf") { yText.removeLast(4) }
        guard let z = Int(try context.parameters.require("z")), let x = Int(try context.parameters.require("x")), let y = Int(yText),
            (0...24).contains(z), x >= 0, y >= 0, x < 1 << z, y < 1 << z
        else { throw WebError.badRequest("a tile is /Z/X/Y.pbf with 0 <= X, Y < 2^Z and Z at most 24", kind: "invalidTile") }
        return TileCoordinate(z: z, x: x, y: y)
    }

    /// A thumbnail kept as a data URI.
    func image(_ uri: String?) throws -> Response {
        guard let uri, let bytes = DataURI.decode(uri) else { throw WebError.notFound("no thumbnail") }
        let type = uri.hasPrefix("data:image/jpeg") ? "image/jpeg" : "image/png"
        return WebResponses.bytes(bytes, type: type, cache: "no-cache")
    }
}
