import HTTPTypes
import Hummingbird
import MapbookPortalAPI
import MapbookSupport

/// Responses in the sharing API's manner: JSON bodies, errors with HTTP 200.
enum PortalResponse {
    static func json(_ value: JSONValue, pretty: Bool = false) -> Response {
        json(encoded: JSONWriter.bytes(value, style: pretty ? .pretty : .compact))
    }

    /// JSON already written.
    static func json(encoded bytes: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(bytes.count)
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// An error as the API reports it: status 200 and the code in the body, which is what
    /// the clients read.
    static func error(_ error: PortalError) -> Response {
        json(error.jsonValue)
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        let bytes = Array(text.utf8)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentLength] = String(bytes.count)
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Bytes under a file name (an attachment, a style, a sprite). Shown in place only when
    /// `contentType` is an image other than SVG, or JSON or protocol buffers: anything else
    /// (HTML, SVG, scripts, whatever a device stored as an attachment's type) is sent as a
    /// download of unknown type, never run on the portal's origin.
    static func bytes(_ bytes: [UInt8], contentType: String, name: String) -> Response {
        let type = contentType.lowercased()
        let safe = (type.hasPrefix("image/") && !type.contains("svg")) || type.hasPrefix("application/json") || type == "application/x-protobuf"
        var headers = HTTPFields()
        headers[.contentType] = safe ? contentType : "application/octet-stream"
        headers[.contentLength] = String(bytes.count)
        let filename = name.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline && $0 != ";" }
        headers[.contentDisposition] = "\(safe ? "inline" : "attachment"); filename=\"\(filename)\""
        headers[.xContentTypeOptions] = "nosniff"
        headers[.cacheControl] = "private, no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A tile as stored: a vector tile (gzip-compressed in a vector tile package: said, not
    /// undone) or a raster base map's image; 204 where there is none. The service may be
    /// private: only the browser keeps it.
    static func tile(_ data: [UInt8]?, cache: String = "private, max-age=86400") -> Response {
        guard let data, !data.isEmpty else { return Response(status: .noContent, headers: [.cacheControl: cache]) }
        var headers = HTTPFields()
        headers[.contentType] = ImageKind(data)?.mimeType ?? "application/x-protobuf"
        headers[.contentLength] = String(data.count)
        headers[.cacheControl] = cache
        if data.count > 2, data[0] == 0x1F, data[1] == 0x8B { headers[.contentEncoding] = "gzip" }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.contentLength] = "0"
        return Response(status: .found, headers: headers)
    }
}
