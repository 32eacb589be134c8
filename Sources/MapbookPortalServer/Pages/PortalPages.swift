#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import MapbookWeb
import Mustache

/// The portal's web pages (issue 34, docs/PORTAL.md "Web pages"): Mustache templates from
/// `Resources/pages`, which escape every value (`{{value}}`; written unescaped are only the OAuth
/// pages' one inline script, as JSON that cannot close its element, and the item lists'
/// listings and select options, each itself rendered from an escaping template, `listing` or `options`), and the pages' own script, style and icon from `Resources/static`.
///
/// They are read from the source tree the binary was built from, or the folder
/// `MAPBOOK_PORTAL_RESOURCES` names (for a binary moved elsewhere), once at start: SwiftPM's
/// resource accessor imports Foundation, whose ICU module clashes with libxml2's (as for
/// `mapbook serve`'s WebAssets).
struct PortalPages: Sendable {
    let templates: MustacheLibrary
    /// The static files by name, with their content types.
    let files: [String: (type: String, bytes: [UInt8])]
    let listings = ItemListings()
    let optionLists = OptionLists()

    static var resources: String {
        if let folder = getenv("MAPBOOK_PORTAL_RESOURCES") { return String(cString: folder) }
        return FileSystem.parent(of: FileSystem.parent(of: #filePath)) + "/Resources"
    }

    static let templateNames = ["layout", "items", "listing", "item", "error", "signin", "oauth-code", "upload", "organization", "users", "user", "groups", "group", "audit", "webmap", "options"]

    init(directory: String = PortalPages.resources) throws {
        MustacheContentTypes.register(PageEscaping(), named: PageEscaping.name)
        var library = MustacheLibrary()
        for name in Self.templateNames {
            let path = "\(directory)/pages/\(name).mustache"
            guard let bytes = try? ByteRange(file: RandomAccessFile(path: path)).readAll(), let text = String(validating: bytes, as: UTF8.self) else {
                throw PortalStoreError(kind: .missingResource, path: path, message: "the page template is missing or unreadable; build mapbook again from its source tree, or set MAPBOOK_PORTAL_RESOURCES")
            }
            do {
                // Every page escapes with `PageEscaping`: the pragma first, so the layout and
                // the partials a page renders inherit it.
                try library.register("{{% CONTENT_TYPE: \(PageEscaping.name) }}" + text, named: name)
            } catch {
                throw PortalStoreError(kind: .missingResource, path: path, message: "the page template does not parse: \(error)")
            }
        }
        templates = library
        var files: [String: (type: String, bytes: [UInt8])] = [:]
        for (name, type) in [("portal.css", "text/css; charset=utf-8"), ("portal.js", "text/javascript; charset=utf-8"), ("preview.js", "text/javascript; charset=utf-8"), ("webmap.js", "text/javascript; charset=utf-8"), ("icon.svg", "image/svg+xml")] {
            let path = "\(directory)/static/\(name)"
            guard let bytes = try? ByteRange(file: RandomAccessFile(path: path)).readAll() else {
                throw PortalStoreError(kind: .missingResource, path: path, message: "the pages' file is missing; build mapbook again from its source tree, or set MAPBOOK_PORTAL_RESOURCES")
            }
            files[name] = (type, bytes)
        }
        // MapLibre GL JS for the item pages' map previews, as `mapbook serve` has it (laid by
        // tools/setup); without it the pages show no preview.
        if let web = try? WebAssets(), let script = web.file("maplibre-gl.js"), let style = web.file("maplibre-gl.css") {
            files["maplibre-gl.js"] = ("text/javascript; charset=utf-8", script)
            files["maplibre-gl.css"] = ("text/css; charset=utf-8", style)
            if let license = web.file("maplibre-LICENSE.txt") { files["maplibre-LICENSE.txt"] = ("text/plain; charset=utf-8", license) }
        }
        self.files = files
    }

    /// Whether the map previews can be drawn (MapLibre GL JS is here).
    var hasMapLibre: Bool { files["maplibre-gl.js"] != nil }

    /// The page `template` with `values`, inside the layout with what every page shows:
    /// the portal's name, who is signed in and their CSRF token, where signing in leads.
    func render(_ template: String, _ values: [String: Any], frame: PageFrame) -> String {
        var all = values
        for (key, value) in frame.values where all[key] == nil { all[key] = value }
        return templates.render(all, withTemplate: template) ?? ""
    }

    /// An item as the lists show it (`ItemListings`), from `values` (`PortalRoutes.listing`).
    func listing(_ item: PortalItem, values: (PortalItem) -> [String: Any]) -> String {
        listings.html(item) { templates.render(values($0), withTemplate: "listing") ?? "" }
    }

    /// A select list's options with `selected` chosen (`OptionLists`).
    func options(_ name: String, _ options: [(value: String, label: String)], selected: String) -> String {
        optionLists.html(name, options, selected: selected) { templates.render($0, withTemplate: "options") ?? "" }
    }
}

/// What the layout of every page needs: the portal's name, the session, the page's own path
/// (to come back to after signing in) and which link of the bar is the current page.
struct PageFrame: Sendable {
    var portalName: String
    var session: BrowserSession?
    /// The path and query of this page.
    var path: String
    var current: String?
    var notice: String?

    var values: [String: Any] {
        var values: [String: Any] = ["portalName": portalName, "signInHref": "/home/signin.html?next=\(FormEncoding.percentEncode(path))"]
        if let session {
            values["session"] = ["csrf": session.csrf, "username": session.user.username, "fullName": session.user.fullName, "isAdmin": session.user.isAdmin] as [String: Any]
        }
        if let current { values["on" + current] = true }
        if let notice { values["notice"] = notice }
        return values
    }
}
