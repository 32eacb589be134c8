import AsyncHTTPClient
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOCore
import NIOHTTP1

/// The calls of the S3 API the portal's file store makes, on one bucket, path-style
/// (`ENDPOINT/BUCKET/KEY`, which AWS S3, MinIO, Ceph, Garage and Swift's s3api all accept),
/// every request signed with Signature Version 4.
public struct S3Client: Sendable {
    public let endpoint: String
    public let bucket: String
    let signer: S3Signer
    let host: String

    /// One HTTP client for the process: its connections are reused by every request of every
    /// store, and it lives as long as the process (AsyncHTTPClient asks to be shut down
    /// before it goes; a process-wide one never goes).
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(60))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// `endpoint`: `http[s]://HOST[:PORT]`.
    public init(endpoint: String, bucket: String, credentials: S3Signer.Credentials) throws(S3Error) {
        var e = endpoint
        while e.hasSuffix("/") { e.removeLast() }
        guard let schemeEnd = e.range(of: "://"), ["http", "https"].contains(e[..<schemeEnd.lowerBound].lowercased()) else {
            throw S3Error(kind: .badConfiguration, status: 0, message: "the S3 endpoint '\(endpoint)' is not an http:// or https:// URL")
        }
        let rest = e[schemeEnd.upperBound...]
        guard !rest.isEmpty, !rest.contains("/") else {
            throw S3Error(kind: .badConfiguration, status: 0, message: "the S3 endpoint '\(endpoint)' must be a scheme and a host, with no path")
        }
        guard Self.isBucketName(bucket) else {
            throw S3Error(kind: .badConfiguration, status: 0, message: "'\(bucket)' is not a valid bucket name (3-63 lowercase letters, digits, dots and hyphens)")
        }
        self.endpoint = e
        self.bucket = bucket
        host = String(rest)
        signer = S3Signer(credentials: credentials)
    }

    static func isBucketName(_ s: String) -> Bool {
        (3...63).contains(s.utf8.count) && s.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }
            && s.first != "-" && s.first != "." && s.last != "-" && s.last != "."
    }

    // MARK: Buckets

    /// Creates the bucket unless it exists.
    public func ensureBucket() async throws(S3Error) {
        let head = try await send("HEAD", key: nil)
        if head.status == 200 { return }
        guard head.status == 404 else { throw head.error("the bucket '\(bucket)' cannot be reached") }
        let made = try await send("PUT", key: nil)
        guard made.status == 200 || made.status == 409 else { throw made.error("cannot create the bucket '\(bucket)'") }
    }

    // MARK: Objects

    /// Stores `bytes` as the object `key` in one request.
    public func put(_ key: String, bytes: ByteBuffer) async throws(S3Error) {
        let r = try await send("PUT", key: key, body: bytes)
        guard r.status == 200 else { throw r.error("cannot store '\(key)'") }
    }

    /// The object's size, or nil when there is none.
    public func size(_ key: String) async throws(S3Error) -> Int64? {
        let r = try await send("HEAD", key: key)
        if r.status == 404 { return nil }
        guard r.status == 200, let size = r.headers.first(name: "content-length").flatMap({ Int64($0) }) else { throw r.error("cannot look up '\(key)'") }
        return size
    }

    /// Streams the object's bytes (one range of them when given) to `each`, as they arrive.
    /// Returns false when the object does not exist.
    @discardableResult
    public func get(_ key: String, range: ClosedRange<Int64>? = nil, _ each: (ByteBuffer) async throws -> Void) async throws -> Bool {
        var headers: [(String, String)] = []
        if let range { headers.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound)")) }
        let response = try await execute("GET", key: key, headers: headers)
        if response.status == .notFound {
            _ = try? await response.body.collect(upTo: 1 << 16)
            return false
        }
        guard response.status == .ok || response.status == .partialContent else {
            let body = (try? await response.body.collect(upTo: 1 << 16)).map { Array($0.readableBytesView) } ?? []
            throw S3Error.from(status: Int(response.status.code), body: body, doing: "cannot read '\(key)'")
        }
        for try await buffer in response.body { try await each(buffer) }
        return true
    }

    public func delete(_ key: String) async throws(S3Error) {
        let r = try await send("DELETE", key: key)
        guard r.status == 204 || r.status == 200 || r.status == 404 else { throw r.error("cannot delete '\(key)'") }
    }

    /// Every object whose key starts with `prefix`, with its size and last-modified time.
    public func list(prefix: String) async throws(S3Error) -> [S3Object] {
        var found: [S3Object] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let r = try await send("GET", key: nil, query: query)
            guard r.status == 200 else { throw r.error("cannot list '\(prefix)'") }
            let root = try r.xml()
            for entry in root.elements where entry.name == "Contents" {
                guard let key = entry.child("Key")?.text else { continue }
                found.append(S3Object(key: key, size: entry.child("Size").flatMap { Int64($0.text) } ?? 0,
                                      lastModified: entry.child("LastModified")?.text ?? ""))
            }
            token = root.child("IsTruncated")?.text == "true" ? root.child("NextContinuationToken")?.text : nil
        } while token != nil
        return found
    }

    // MARK: Multipart uploads

    public func createMultipartUpload(_ key: String) async throws(S3Error) -> String {
        let r = try await send("POST", key: key, query: [("uploads", "")])
        guard r.status == 200, let id = try r.xml().child("UploadId")?.text, !id.isEmpty else { throw r.error("cannot begin an upload of '\(key)'") }
        return id
    }

    /// Uploads one part (every part but the last at least 5 MiB); returns its ETag.
    public func uploadPart(_ key: String, uploadId: String, number: Int, bytes: ByteBuffer) async throws(S3Error) -> String {
        let r = try await send("PUT", key: key, query: [("partNumber", String(number)), ("uploadId", uploadId)], body: bytes)
        guard r.status == 200, let etag = r.headers.first(name: "etag") else { throw r.error("cannot upload part \(number) of '\(key)'") }
        return etag
    }

    public func completeMultipartUpload(_ key: String, uploadId: String, parts: [(number: Int, etag: String)]) async throws(S3Error) {
        let body = "<CompleteMultipartUpload>" + parts.map {
            "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(Self.escape($0.etag))</ETag></Part>"
        }.joined() + "</CompleteMultipartUpload>"
        let r = try await send("POST", key: key, query: [("uploadId", uploadId)], body: ByteBuffer(string: body))
        // S3 may answer 200 and still report an error in the body, after a long assembly.
        guard r.status == 200, (try? r.xml())?.name != "Error" else { throw r.error("cannot complete the upload of '\(key)'") }
    }

    public func abortMultipartUpload(_ key: String, uploadId: String) async throws(S3Error) {
        let r = try await send("DELETE", key: key, query: [("uploadId", uploadId)])
        guard r.status == 204 || r.status == 200 || r.status == 404 else { throw r.error("cannot abort the upload of '\(key)'") }
    }

    /// The multipart uploads begun and neither completed nor aborted, under `prefix`.
    public func multipartUploads(prefix: String) async throws(S3Error) -> [(key: String, uploadId: String, initiated: String)] {
        var found: [(String, String, String)] = []
        var keyMarker: String?, idMarker: String?
        repeat {
            var query = [("uploads", ""), ("prefix", prefix)]
            if let keyMarker { query.append(("key-marker", keyMarker)) }
            if let idMarker { query.append(("upload-id-marker", idMarker)) }
            let r = try await send("GET", key: nil, query: query)
            guard r.status == 200 else { throw r.error("cannot list the uploads under '\(prefix)'") }
            let root = try r.xml()
            for upload in root.elements where upload.name == "Upload" {
                guard let key = upload.child("Key")?.text, let id = upload.child("UploadId")?.text else { continue }
                found.append((key, id, upload.child("Initiated")?.text ?? ""))
            }
            let truncated = root.child("IsTruncated")?.text == "true"
            keyMarker = truncated ? root.child("NextKeyMarker")?.text : nil
            idMarker = truncated ? root.child("NextUploadIdMarker")?.text : nil
        } while keyMarker != nil
        return found
    }

    // MARK: Requests

    /// A finished response whose body was small enough to keep.
    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        let doing: String

        func error(_ doing: String) -> S3Error { S3Error.from(status: status, body: body, doing: doing) }

        func xml() throws(S3Error) -> XMLElement {
            do { return try XMLDocumentIO.parse(body, path: "S3 response") } catch {
                throw S3Error(kind: .badResponse, status: status, message: "\(doing): the answer is not XML (\(error.message))")
            }
        }
    }

    func send(_ method: String, key: String?, query: [(String, String)] = [], body: ByteBuffer? = nil) async throws(S3Error) -> Reply {
        do {
            let response = try await execute(method, key: key, query: query, body: body)
            let bytes = try await response.body.collect(upTo: 16 << 20)
            return Reply(status: Int(response.status.code), headers: response.headers, body: Array(bytes.readableBytesView), doing: method)
        } catch let error as S3Error {
            throw error
        } catch {
            throw S3Error(kind: .unreachable, status: 0, message: "the object store at \(endpoint) cannot be reached: \(error)")
        }
    }

    func execute(_ method: String, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [], body: ByteBuffer? = nil) async throws -> HTTPClientResponse {
        let path = "/\(bucket)" + (key.map { "/\($0)" } ?? "")
        let queryString = query.map { "\(FormEncoding.percentEncode($0.0))=\(FormEncoding.percentEncode($0.1))" }
            .joined(separator: "&")
        var request = HTTPClientRequest(url: endpoint + S3Signer.encodePath(path) + (queryString.isEmpty ? "" : "?" + queryString))
        request.method = HTTPMethod(rawValue: method)
        let payloadHash = body.map { buffer in buffer.withUnsafeReadableBytes { raw in
            var digest = SHA256Digest()
            digest.update(raw)
            return digest.finalizeHex()
        } } ?? SHA256Digest.hex(of: [])
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        for (name, value) in signer.sign(method: method, host: host, path: path, query: query, headers: headers, payloadHash: payloadHash) {
            request.headers.add(name: name, value: value)
        }
        if let body {
            request.headers.add(name: "content-length", value: String(body.readableBytes))
            request.body = HTTPClientRequest.Body.bytes(body)
        }
        do {
            return try await Self.http.execute(request, timeout: .seconds(300))
        } catch {
            throw S3Error(kind: .unreachable, status: 0, message: "the object store at \(endpoint) cannot be reached: \(error)")
        }
    }

    static func escape(_ s: String) -> String {
        s.replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;").replacingAll(">", with: "&gt;").replacingAll("\"", with: "&quot;")
    }
}

extension S3Client {
    /// A range of the object, waited for on this thread (`S3RemoteBytes`); nil when the
    /// object does not exist. The request runs on NIO's event loops only, so waiting for it
    /// from any thread that is not one of them is safe.
    func getNow(_ key: String, range: ClosedRange<Int64>) throws -> [UInt8]? {
        let path = "/\(bucket)/\(key)"
        let rangeHeader = [("Range", "bytes=\(range.lowerBound)-\(range.upperBound)")]
        var headers = HTTPHeaders(rangeHeader)
        for (name, value) in signer.sign(method: "GET", host: host, path: path, query: [], headers: rangeHeader, payloadHash: SHA256Digest.hex(of: [])) {
            headers.add(name: name, value: value)
        }
        let request = try HTTPClient.Request(url: endpoint + S3Signer.encodePath(path), method: .GET, headers: headers)
        let response: HTTPClient.Response
        do {
            response = try Self.http.execute(request: request, deadline: .now() + .seconds(60)).wait()
        } catch {
            throw S3Error(kind: .unreachable, status: 0, message: "the object store at \(endpoint) cannot be reached: \(error)")
        }
        if response.status == .notFound { return nil }
        let body = response.body.map { Array($0.readableBytesView) } ?? []
        // A server that ignores the range answers 200 with the whole object: refused, as what
        // was asked for is not what came.
        guard response.status == .partialContent || (response.status == .ok && range.lowerBound == 0 && Int64(body.count) == range.upperBound + 1) else {
            if response.status == .ok { throw S3Error(kind: .badResponse, status: 200, message: "the object store ignored the range asked of '\(key)'") }
            throw S3Error.from(status: Int(response.status.code), body: body, doing: "cannot read '\(key)'")
        }
        return body
    }
}
