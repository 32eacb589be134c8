import MapbookPackage
import NIOCore
import MapbookPortalAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `multipart/form-data` body (RFC 7578): text fields, then at most one file part whose
/// bytes are read from disk as the request is sent, never held whole in memory.
///
/// Its length is known up front, so the request carries `Content-Length`, which the sharing
/// API wants. It can be iterated more than once: each iteration reads the file again, so a
/// request can be replayed (after a token refresh).
struct MultipartForm: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// A byte range of a file sent as one form part.
    struct FilePart: Sendable {
        var field: String
        /// The name the server is told (`filename=`).
        var fileName: String
        var path: String
        var offset: Int64
        var length: Int64
    }

    let boundary: String
    private let head: [UInt8]
    private let tail: [UInt8]
    private let file: FilePart?
    /// Called with the file bytes sent so far, as they go.
    private let progress: (@Sendable (Int64) -> Void)?

    init(fields: [(String, String)], file: FilePart?, progress: (@Sendable (Int64) -> Void)? = nil) {
        let boundary = "mapbook-" + Base64URL.random(bytes: 18)
        var head: [UInt8] = []
        for (name, value) in fields {
            head += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(name))\"\r\n\r\n".utf8)
            head += Array(value.utf8) + [13, 10]
        }
        var tail: [UInt8] = []
        if let file {
            head += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(file.field))\"; filename=\"\(Self.quoted(file.fileName))\"\r\n".utf8)
            head += Array("Content-Type: application/octet-stream\r\n\r\n".utf8)
            tail += [13, 10]
        }
        tail += Array("--\(boundary)--\r\n".utf8)
        self.boundary = boundary
        self.head = head
        self.tail = tail
        self.file = file
        self.progress = progress
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The body's size in bytes.
    var length: Int64 { Int64(head.count) + (file?.length ?? 0) + Int64(tail.count) }

    /// A name inside a quoted header parameter: quotes and line breaks cannot be sent there
    /// (RFC 7578 section 4.2 leaves escaping to percent-encoding, which servers undo
    /// inconsistently), so they become underscores.
    static func quoted(_ text: String) -> String {
        String(text.map { $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\\" ? "_" : $0 })
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(form: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        let form: MultipartForm
        private var stage = 0
        private var reader: RandomAccessFile?
        private var sent: Int64 = 0

        init(form: MultipartForm) {
            self.form = form
        }

        mutating func next() async throws -> ByteBuffer? {
            while true {
                switch stage {
                case 0:
                    stage = 1
                    return ByteBuffer(bytes: form.head)
                case 1:
                    guard let file = form.file, sent < file.length else {
                        stage = 2
                        continue
                    }
                    let bytes: [UInt8]
                    do {
                        if reader == nil { reader = try RandomAccessFile(path: file.path) }
                        let want = Int(Swift.min(Int64(256 << 10), file.length - sent))
                        guard file.offset + sent + Int64(want) <= reader!.size else {
                            throw PortalClientError(.transfer, url: file.path, message: "the file ended before the \(file.length) bytes to upload; was it changed during the upload?")
                        }
                        bytes = try reader!.read(at: file.offset + sent, count: want)
                    } catch let error as ArchiveError {
                        throw PortalClientError(sent == 0 ? .usage : .transfer, url: file.path, message: "cannot read the file: \(error.message)")
                    }
                    sent += Int64(bytes.count)
                    form.progress?(sent)
                    return ByteBuffer(bytes: bytes)
                case 2:
                    stage = 3
                    reader = nil
                    return ByteBuffer(bytes: form.tail)
                default:
                    return nil
                }
            }
        }
    }
}
