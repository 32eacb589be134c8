#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import MapbookPackage
import MapbookPortalAPI
import MultipartKit
import NIOPosix
import MapbookSupport

/// A file that came with a request, already on disk in the staging folder.
public struct UploadedFile: Sendable {
    public var path: String
    /// The file name the client gave.
    public var name: String
    public var size: Int64
    public var sha256: String

    /// A file this portal wrote (a new version it made), read once for its size and SHA-256.
    static func hashing(_ path: String, name: String) throws -> UploadedFile {
        let range = ByteRange(file: try RandomAccessFile(path: path))
        var sha = SHA256Digest()
        try range.forEachChunk { sha.update($0) }
        return UploadedFile(path: path, name: name, size: range.length, sha256: sha.finalizeHex())
    }
}

/// The parameters of a sharing API request: the query string merged with a form body
/// (URL-encoded or multipart). A multipart file part is streamed to a staging file as it
/// arrives, never held in memory.
public struct RequestParameters: Sendable {
    public var values: [String: String] = [:]
    /// Uploaded files by form field (`file`, `thumbnail`).
    public var files: [String: UploadedFile] = [:]

    public init() {}

    /// The parameters of a query string alone.
    public init(query: String?) {
        if let query { merge(form: query) }
    }

    public subscript(_ key: String) -> String? {
        let v = values[key] ?? values.first { $0.key.lowercased() == key.lowercased() }?.value
        return v?.isEmpty == true ? nil : v
    }

    /// Limits on what a request may bring.
    public struct Limits: Sendable {
        /// A URL-encoded body, or the text fields of a multipart one.
        public var formBytes = 4 << 20
        /// One uploaded file.
        public var fileBytes: Int64 = 8 << 30
        public init() {}
    }

    /// What a multipart body's text fields so far must pass before its first file is stored
    /// (`read`'s `beforeFile`).
    public typealias FileGate = @Sendable ([String: String]) async throws -> Void

    /// Reads the parameters of `request`; `staging` gives a fresh file for an upload.
    /// `beforeFile`, when given, sees a multipart body's text fields before a byte of its
    /// first file is stored, and may refuse it by throwing: the rest of the body is then read
    /// and dropped, and its error thrown.
    public static func read(_ request: Request, limits: Limits, staging: @escaping () throws -> String, beforeFile: FileGate? = nil) async throws -> RequestParameters {
        var params = RequestParameters()
        if let query = request.uri.query { params.merge(form: query) }
        guard request.method == .post || request.method == .put else { return params }
        let type = request.headers[.contentType] ?? ""
        let lower = type.lowercased()
        if lower.hasPrefix("multipart/form-data") {
            guard let boundary = boundary(of: type) else { throw PortalError.badRequest("The multipart body has no boundary.") }
            try await params.readMultipart(request.body, boundary: boundary, limits: limits, staging: staging, beforeFile: beforeFile)
        } else {
            var bytes: [UInt8] = []
            for try await buffer in request.body {
                bytes += buffer.readableBytesView
                if bytes.count > limits.formBytes { throw PortalError(code: 413, message: "The request body is larger than \(limits.formBytes) bytes.") }
            }
            if lower.isEmpty || lower.hasPrefix("application/x-www-form-urlencoded") || lower.hasPrefix("text/plain") {
                params.merge(form: String(decoding: bytes, as: UTF8.self))
            }
        }
        return params
    }

    static func boundary(of contentType: String) -> String? {
        for part in contentType.split(separator: ";") {
            let p = part.trimming(" \t")
            if p.lowercased().hasPrefix("boundary=") {
                var b = String(p.dropFirst("boundary=".count))
                if b.hasPrefix("\""), b.hasSuffix("\""), b.count >= 2 { b = String(b.dropFirst().dropLast()) }
                return b.isEmpty || b.utf8.count > 200 ? nil : b
            }
        }
        return nil
    }

    mutating func merge(form: String) {
        values.merge(FormEncoding.decode(form)) { _, new in new }
    }

    /// Streams a multipart body: text fields into `values`, a part with a file name into a
    /// staging file (hashing it on the way). With `beforeFile`, a file's first bytes are held
    /// in memory (one buffer at most) until the fields before it have passed it.
    private mutating func readMultipart(
        _ body: RequestBody, boundary: String, limits: Limits, staging: @escaping () throws -> String, beforeFile: FileGate?
    ) async throws {
        let parser = MultipartParser(boundary: boundary)
        final class Part {
            var name: String?
            var fileName: String?
            var text: [UInt8] = []
            var fd: Int32 = -1
            var path: String?
            var size: Int64 = 0
            var digest = SHA256Digest()
            /// File bytes received before the gate let the files in.
            var held: [UInt8] = []
        }
        final class Collected {
            var values: [String: String] = [:]
            var files: [String: UploadedFile] = [:]
            var current = Part()
            var textBytes = 0
            var failure: (any Error)?
            /// Whether files may be stored: no gate, or the gate passed.
            var admitted: Bool
            /// File parts that ended before the gate was asked.
            var waiting: [Part] = []

            init(admitted: Bool) { self.admitted = admitted }
        }
        let collected = Collected(admitted: beforeFile == nil)
        let stagingFile = staging
        func store(_ part: Part, _ raw: UnsafeRawBufferPointer) throws {
            if part.fd < 0 {
                let path = try stagingFile()
                part.path = path
                part.fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
                if part.fd < 0 { throw PortalError(code: 500, message: "Cannot write the upload: \(FileSystem.errorMessage()).") }
            }
            var done = 0
            while done < raw.count {
                let n = write(part.fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw PortalError(code: 500, message: "Cannot write the upload: \(FileSystem.errorMessage()).")
                }
                done += n
            }
        }
        func storeHeld(_ part: Part) throws {
            guard !part.held.isEmpty else { return }
            try part.held.withUnsafeBytes { try store(part, $0) }
            part.held = []
        }
        func finishFile(_ part: Part) {
            guard let name = part.name, let fileName = part.fileName else { return }
            if part.fd < 0, let path = try? stagingFile() {
                // An empty file still arrives as a file.
                part.path = path
            }
            if part.fd >= 0 { close(part.fd) }
            if let path = part.path {
                if let old = collected.files[name] { unlink(old.path) }
                collected.files[name] = UploadedFile(path: path, name: fileName, size: part.size, sha256: part.digest.finalizeHex())
            }
        }
        parser.onHeader = { name, value in
            guard name.lowercased() == "content-disposition" else { return }
            for piece in value.split(separator: ";") {
                let p = piece.trimming(" \t")
                if p.lowercased().hasPrefix("name=") { collected.current.name = Self.unquote(p.dropFirst(5)) }
                if p.lowercased().hasPrefix("filename=") { collected.current.fileName = Self.unquote(p.dropFirst(9)) }
            }
        }
        parser.onBody = { buffer in
            guard collected.failure == nil else { return }
            let part = collected.current
            if part.fileName != nil {
                do {
                    let view = buffer.readableBytesView
                    part.size += Int64(view.count)
                    if part.size > limits.fileBytes { throw PortalError(code: 413, message: "The file is larger than \(limits.fileBytes) bytes.") }
                    try view.withContiguousStorageIfAvailable { raw in
                        part.digest.update(UnsafeRawBufferPointer(raw))
                        if collected.admitted { try store(part, UnsafeRawBufferPointer(raw)) } else { part.held += raw }
                    }
                } catch {
                    collected.failure = error
                }
            } else {
                collected.textBytes += buffer.readableBytes
                if collected.textBytes > limits.formBytes {
                    collected.failure = PortalError(code: 413, message: "The form fields are larger than \(limits.formBytes) bytes.")
                    return
                }
                part.text += buffer.readableBytesView
            }
        }
        parser.onPartComplete = {
            let part = collected.current
            collected.current = Part()
            guard collected.failure == nil, let name = part.name else {
                if part.fd >= 0 { close(part.fd) }
                return
            }
            if part.fileName != nil {
                if collected.admitted { finishFile(part) } else { collected.waiting.append(part) }
            } else {
                collected.values[name] = String(decoding: part.text, as: UTF8.self)
            }
        }
        // The parser writes file parts to disk as it goes, so it runs on NIO's thread pool,
        // not on Swift's cooperative pool, where a slow disk would hold up other requests.
        // One chunk at a time: the parser is never used by two threads at once.
        struct ParserOnPool: @unchecked Sendable { let parser: MultipartParser }
        let onPool = ParserOnPool(parser: parser)
        do {
            var refusal: (any Error)?
            var dropped = 0
            for try await buffer in body {
                if refusal != nil {
                    // Refused: the rest is read to its end and dropped, so a client that sends
                    // it all before reading gets the answer.
                    dropped += buffer.readableBytes
                    if Int64(dropped) > limits.fileBytes + Int64(limits.formBytes) { break }
                    continue
                }
                try await NIOThreadPool.singleton.runIfActive { try onPool.parser.execute(buffer) }
                if let failure = collected.failure { throw failure }
                let fileBegun = collected.current.fileName != nil && collected.current.size > 0
                if let beforeFile, !collected.admitted, fileBegun || !collected.waiting.isEmpty {
                    do {
                        try await beforeFile(collected.values)
                    } catch {
                        refusal = error
                        continue
                    }
                    collected.admitted = true
                    for part in collected.waiting {
                        try storeHeld(part)
                        finishFile(part)
                    }
                    collected.waiting = []
                    try storeHeld(collected.current)
                }
            }
            if let refusal { throw refusal }
        } catch {
            for file in collected.files.values { unlink(file.path) }
            if let path = collected.current.path {
                if collected.current.fd >= 0 { close(collected.current.fd) }
                unlink(path)
            }
            if error is PortalError { throw error }
            throw PortalError.badRequest("The multipart body is malformed: \(error).")
        }
        for (k, v) in collected.values { values[k] = v }
        files = collected.files
    }

    static func unquote(_ s: Substring) -> String {
        var t = String(s)
        if t.hasPrefix("\""), t.hasSuffix("\""), t.count >= 2 { t = String(t.dropFirst().dropLast()) }
        return t
    }
}

