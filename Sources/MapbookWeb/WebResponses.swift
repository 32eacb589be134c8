import HTTPTypes
import Hummingbird
import MapbookSupport
import NIOCore

/// Responses built once: JSON, pages, files and tiles with their types and caching.
enum WebResponses {
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        bytes(JSONWriter.bytes(value, style: .compact), type: "application/json; charset=utf-8", status: status, cache: "no-store")
    }

    static func page(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        bytes(Array(html.utf8), type: "text/html; charset=utf-8", status: status, cache: "no-store")
    }

    /// `cache` is the Cache-Control value.
    static func bytes(_ bytes: [UInt8], type: String, status: HTTPResponse.Status = .ok, cache: String, encoding: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: cache]
        if let encoding { headers[.contentEncoding] = encoding }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A vector tile: gzip-compressed ones (as bundles store them) say so, for the browser to
    /// inflate; an empty tile is 204, which MapLibre takes as a tile with nothing in it.
    static func tile(_ data: [UInt8]?, cache: String) -> Response {
        guard let data, !data.isEmpty else { return Response(status: .noContent, headers: [.cacheControl: cache]) }
        // A raster base map's tiles are images (a vector tile starts with a protobuf tag).
        if let image = ImageKind(data) { return bytes(data, type: image.mimeType, cache: cache) }
        let gzipped = data.count > 2 && data[0] == 0x1F && data[1] == 0x8B
        return bytes(data, type: "application/vnd.mapbox-vector-tile", cache: cache, encoding: gzipped ? "gzip" : nil)
    }

    static func contentType(ofPath path: String) -> String {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "js": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json": return "application/json; charset=utf-8"
        case "webmanifest": return "application/manifest+json"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "svg": return "image/svg+xml"
        case "pbf": return "application/x-protobuf"
        case "html": return "text/html; charset=utf-8"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}
