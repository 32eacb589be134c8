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

    func register(_ router: Hummingbird.Router<BasicRequestContext>) {
        // Pages.
        router.get("/") { _, _ in
            WebResponses.page(pages.library(catalog.listings(), libraryRoot: catalog.library?.root, updates: catalog.sync?.update != nil))
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
            let tile = try host.baseMapTile(map: number, index: try context.parameters.require("index", as: Int.self), tile: try tileCoordinate(context))
            return WebResponses.tile(tile, cache: "public, max-age=86400")
        }
        router.get("/packages/:package/maps/:map/basemaps/:index/resources/**") { _, context in
            let (host, number) = try mapAddress(context)
            let path = context.parameters.getCatchAll().map { FormEncoding.percentDecode($0.utf8) ?? String($0) }.joined(separator: "/")
            guard let bytes = try host.baseMapResource(map: number, index: try context.parameters.require("index", as: Int.self), path: path) else {
                throw WebError.notFound("the base map has no resources/\(path)")
            }
            return WebResponses.bytes(bytes, type: WebResponses.contentType(ofPath: path), cache: "public, max-age=86400")
        }
        // Glyphs for feature labels on a map without a vector base map, from the installed fonts.
        router.get("/glyphs/:stack/:range") { _, context in
            guard let bytes = PackageHost.glyphs(stack: try decoded(context, "stack"), range: try context.parameters.require("range")) else {
                throw WebError.notFound("no glyph range \(try context.parameters.require("range")) (START-END.pbf, 256 code points)")
            }
            return WebResponses.bytes(bytes, type: "application/x-protobuf", cache: "public, max-age=86400")
        }
        router.get("/packages/:package/maps/:map/layers/:layer/tiles/:z/:x/:y") { _, context in
            let (host, number) = try mapAddress(context)
            let bytes = try host.featureTile(map: number, layer: try decoded(context, "layer"), tile: try tileCoordinate(context))
            // Made from the data as it is now: edits show at once.
            return WebResponses.tile(bytes, cache: "no-cache")
        }

        let api = WebAPI(catalog: catalog)
        api.register(router)
        api.registerEdits(router)
        api.registerSync(router)
        api.registerTakeOffline(router)
        api.registerUpdate(router)
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
        try PackageHost.tile(z: try context.parameters.require("z"), x: try context.parameters.require("x"), y: try context.parameters.require("y"))
    }

    /// A thumbnail kept as a data URI.
    func image(_ uri: String?) throws -> Response {
        guard let uri, let bytes = DataURI.decode(uri) else { throw WebError.notFound("no thumbnail") }
        let type = uri.hasPrefix("data:image/jpeg") ? "image/jpeg" : "image/png"
        return WebResponses.bytes(bytes, type: type, cache: "no-cache")
    }
}
