#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Hummingbird
import MapbookPortalAPI
import MapbookSupport
import NIOCore
import NIOPosix

/// Sends a stored file the way download managers and resuming clients expect: length, name,
/// validators, and one byte range when asked (206), streamed from the store in pieces as
/// they are read (a disk's chunks, an object store's ranged GET).
enum FileResponse {
    /// Streams a range of the file (all of it when nil) to a consumer.
    typealias Reader = @Sendable (ClosedRange<Int64>?, (ByteBuffer) async throws -> Void) async throws -> Void

    /// A file of the item file store.
    static func send(_ file: StoredFile, from store: any ItemFileStore, request: Request, etag: String?, modified: Int64, contentType: String, attachment: Bool) -> Response {
        send(file, request: request, etag: etag, modified: modified, contentType: contentType, attachment: attachment) { range, each in
            try await store.read(file, range: range, each)
        }
    }

    /// `etag`: the file's SHA-256, sent quoted; `modified`: epoch milliseconds.
    static func send(_ file: StoredFile, request: Request, etag: String?, modified: Int64, contentType: String, attachment: Bool, read: @escaping Reader) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.acceptRanges] = "bytes"
        let quoted = etag.map { "\"\($0)\"" }
        if let quoted { headers[.eTag] = quoted }
        headers[.lastModified] = httpDate(modified / 1000)
        headers[.cacheControl] = "private, no-cache"
        headers[.contentDisposition] = "\(attachment ? "attachment" : "inline"); \(dispositionName(file.name))"

        if let quoted, let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimming(" \t") == quoted || $0.trimming(" \t") == "*" }) {
            headers[.contentLength] = "0"
            return Response(status: .notModified, headers: headers)
        }
        var range: ClosedRange<Int64>?
        if let spec = request.headers[.range] {
            // If-Range: a range of a file that changed since would be spliced into the wrong bytes.
            let ifRange = request.headers[.ifRange]
            if ifRange == nil || ifRange == quoted {
                switch parseRange(spec, size: file.size) {
                case .none: break
                case .satisfiable(let r): range = r
                case .unsatisfiable:
                    headers[.contentRange] = "bytes */\(file.size)"
                    headers[.contentLength] = "0"
                    return Response(status: .rangeNotSatisfiable, headers: headers)
                }
            }
        }
        let length = range.map { $0.upperBound - $0.lowerBound + 1 } ?? file.size
        headers[.contentLength] = String(length)
        if let range { headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)" }
        // A HEAD is answered from what the store knows: no read of the file (on S3, a GET
        // of the whole object).
        if request.method == .head { return Response(status: range == nil ? .ok : .partialContent, headers: headers, body: ResponseBody()) }
        let wanted = range
        let body = ResponseBody(contentLength: Int(length)) { writer in
            try await read(wanted) { try await writer.write($0) }
            try await writer.finish(nil)
        }
        return Response(status: range == nil ? .ok : .partialContent, headers: headers, body: body)
    }

    enum RangeRequest: Equatable {
        case none
        case satisfiable(ClosedRange<Int64>)
        case unsatisfiable
    }

    /// One `bytes=` range (`a-b`, `a-`, `-n`); several ranges or other units are answered
    /// with the whole file, as RFC 9110 allows.
    static func parseRange(_ spec: String, size: Int64) -> RangeRequest {
        let s = spec.trimming(" \t")
        guard s.lowercased().hasPrefix("bytes="), !s.contains(",") else { return .none }
        let r = s.dropFirst(6).trimming(" \t")
        let parts = r.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .none }
        if parts[0].isEmpty {
            guard let n = Int64(parts[1]), n > 0 else { return .unsatisfiable }
            guard size > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, size - n)...(size - 1))
        }
        guard let a = Int64(parts[0]), a >= 0 else { return .none }
        guard a < size else { return .unsatisfiable }
        if parts[1].isEmpty { return .satisfiable(a...(size - 1)) }
        guard let b = Int64(parts[1]), b >= a else { return .none }
        return .satisfiable(a...min(b, size - 1))
    }

    /// `filename="…"` for plain ASCII names, with `filename*` (RFC 6266) for others.
    static func dispositionName(_ name: String) -> String {
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 ? Character($0) : "_" })
        var out = "filename=\"\(ascii)\""
        if ascii != name { out += "; filename*=UTF-8''\(FormEncoding.percentEncode(name))" }
        return out
    }

    /// An HTTP date (RFC 9110 IMF-fixdate).
    static func httpDate(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
