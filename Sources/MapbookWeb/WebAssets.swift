#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import MapbookPackage
import Hummingbird
import MapbookSupport

/// The application's own files: the page scripts and styles (`Resources/static`), MapLibre
/// GL JS as `tools/setup` laid it (`Resources/maplibre`, never committed), the service worker
/// and the manifest, read once at start.
///
/// They are read from the source tree the binary was built from (or the folder
/// `MAPBOOK_WEB_RESOURCES` names, for a binary moved elsewhere), not as SwiftPM resources:
/// the resource accessor SwiftPM generates imports Foundation, whose ICU module clashes with
/// the system ICU headers libxml2 brings in (MapbookSupport) in a clean build.
///
/// Public for the portal, whose item pages draw maps with the same MapLibre.
public struct WebAssets: Sendable {
    let files: [String: [UInt8]]
    let templates: String

    /// A file by name (`maplibre-gl.js`, `maplibre-gl.css`, `maplibre-LICENSE.txt`, `app.js`...).
    public func file(_ name: String) -> [UInt8]? { files[name] }

    public static var resources: String {
        if let folder = getenv("MAPBOOK_WEB_RESOURCES") { return String(cString: folder) }
        return FileSystem.parent(of: #filePath) + "/Resources"
    }

    public init(directory: String = WebAssets.resources) throws {
        var files: [String: [UInt8]] = [:]
        let maplibre = ["maplibre-gl.js", "maplibre-gl.css", "LICENSE.txt"]
        for name in maplibre {
            let path = "\(directory)/maplibre/\(name)"
            guard let bytes = try? Self.read(path) else {
                throw WebError(
                    status: .internalServerError, kind: "missingResource",
                    message: "\(path) is missing: run tools/setup (it fetches MapLibre GL JS from PyPI), then build mapbook again")
            }
            files[name == "LICENSE.txt" ? "maplibre-LICENSE.txt" : name] = bytes
        }
        for name in FileSystem.names(in: directory + "/static") {
            files[name] = try Self.read("\(directory)/static/\(name)")
        }
        for required in ["app.js", "app.css", "sw.js", "manifest.webmanifest"] where files[required] == nil {
            throw WebError(status: .internalServerError, kind: "missingResource", message: "\(directory)/static/\(required) is missing; build mapbook again")
        }
        self.files = files
        templates = directory + "/templates"
    }

    static func read(_ path: String) throws -> [UInt8] {
        let file = try RandomAccessFile(path: path)
        return try file.read(at: 0, count: Int(file.size))
    }

    /// A file by name; the application's code is checked again on each load (`no-cache`:
    /// the service worker keeps it for offline use).
    func response(_ name: String) throws -> Response {
        guard let bytes = files[name] else { throw WebError.notFound("no file \(name)") }
        var response = WebResponses.bytes(bytes, type: WebResponses.contentType(ofPath: name), cache: "no-cache")
        if name == "sw.js" { response.headers[HTTPField.Name("Service-Worker-Allowed")!] = "/" }
        return response
    }
}
