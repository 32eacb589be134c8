import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import MapbookViewer
import Mustache

/// The pages, rendered on the server from the Mustache templates in `Resources/templates`,
/// which escape every value (`{{value}}`) unless a template says otherwise (none does).
struct WebPages: Sendable {
    let templates: MustacheLibrary

    init(directory: String) async throws {
        templates = try await MustacheLibrary(directory: directory)
        for name in ["layout", "library", "maps", "map", "error"] where templates.getTemplate(named: name) == nil {
            throw WebError(status: .internalServerError, kind: "missingResource", message: "the page template \(directory)/\(name).mustache is missing; build mapbook again")
        }
    }

    func render(_ template: String, _ values: [String: Any]) -> String {
        templates.render(values, withTemplate: template) ?? ""
    }

    /// The library: each package with its thumbnail, title (a link when it opens), summary,
    /// size, maps, expiration and update badge, with an Update button when `updates` (the
    /// server updates packages from the device library's portal).
    func library(_ listings: [WebCatalog.Listing], libraryRoot: String?, updates: Bool = false) -> String {
        let now = MobileMapPackage.now()
        let packages: [[String: Any]] = listings.map { listing in
            var facts = [Format.bytes(listing.size), listing.maps.count == 1 ? "1 map" : "\(listing.maps.count) maps"]
            if !listing.maps.isEmpty { facts.append(listing.maps.joined(separator: ", ")) }
            var item: [String: Any] = [
                "title": listing.title, "summary": listing.summary, "facts": facts.joined(separator: " · "),
                "updateAvailable": listing.updateAvailable && !listing.updateRequired, "updateRequired": listing.updateRequired,
            ]
            if listing.problem == nil { item["href"] = "/packages/\(FormEncoding.percentEncode(listing.key))/" }
            if updates, listing.updateAvailable || listing.updateRequired, listing.libraryEntry?.itemId != nil {
                item["updateAPI"] = "/api/packages/\(FormEncoding.percentEncode(listing.key))/update"
            }
            if listing.hasThumbnail { item["thumbnail"] = "/packages/\(FormEncoding.percentEncode(listing.key))/thumbnail" }
            if let problem = listing.problem { item["problem"] = problem }
            if let expiration = listing.expiration, let when = expiration.dateTime {
                let passed = when <= now
                let date = String(ISODate.format(milliseconds: when).prefix(10))
                let blocks = expiration.kind == .preventExpiredAccess
                item["expiration"] = passed ? (blocks ? "Expired \(date): cannot be opened" : "Expired \(date)") : (blocks ? "Expires \(date), then cannot be opened" : "Expires \(date)")
                item["expired"] = passed
            }
            return item
        }
        let total = listings.reduce(Int64(0)) { $0 + $1.size }
        let summary = listings.isEmpty ? "" : "\(listings.count) package\(listings.count == 1 ? "" : "s"), \(Format.bytes(total))" + (libraryRoot.map { " · library \($0)" } ?? "")
        return render("library", ["packages": packages, "summary": summary])
    }

    /// A package's maps: thumbnails and titles as links.
    func maps(_ session: MapSession, key: String, notice: String?) -> String {
        let base = "/packages/\(FormEncoding.percentEncode(key))"
        let maps: [[String: Any]] = session.maps.enumerated().map { i, summary in
            let item = summary.map.item
            var layers = 0
            if let operational = summary.map.map.operationalLayers { layers = operational.count }
            var map: [String: Any] = [
                "name": summary.name, "href": "\(base)/maps/\(i + 1)/",
                "facts": "\(layers) layer\(layers == 1 ? "" : "s") · \(summary.map.map.bookmarks?.count ?? 0) bookmark\(summary.map.map.bookmarks?.count == 1 ? "" : "s")",
            ]
            if let snippet = item.snippet ?? item.summary, !snippet.isEmpty { map["snippet"] = HTMLText.plain(snippet, collapsing: true) }
            if item.thumbnail.flatMap(DataURI.decode) != nil { map["thumbnail"] = "\(base)/maps/\(i + 1)/thumbnail" }
            return map
        }
        let manifest = session.package.manifest
        var values: [String: Any] = ["title": manifest.title ?? FileSystem.lastComponent(session.package.path), "maps": maps]
        if let summary = manifest.summary ?? manifest.description { values["summary"] = HTMLText.plain(summary, collapsing: true) }
        if let notice { values["notice"] = notice }
        return render("maps", values)
    }

    /// The map page: MapLibre's container, the search box, the tools and their panel.
    func map(_ map: ViewerMap, key: String, number: Int, notice: String?) -> String {
        let base = "/packages/\(FormEncoding.percentEncode(key))"
        var values: [String: Any] = [
            "mapName": map.name, "packageTitle": map.session.package.manifest.title ?? FileSystem.lastComponent(map.session.package.path),
            "packageHref": base + "/", "base": "\(base)/maps/\(number)", "api": "/api\(base)/maps/\(number)",
        ]
        if let notice { values["notice"] = notice }
        return render("map", values)
    }

    func errorPage(_ error: WebError) -> String {
        render("error", ["heading": "\(error.status.code) \(error.status.reasonPhrase)", "message": error.message])
    }
}
