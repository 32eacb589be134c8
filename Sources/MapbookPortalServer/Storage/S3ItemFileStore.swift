#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport
import NIOCore
import NIOPosix

/// Item files in an S3 bucket, shared by every portal process:
///
///     items/<id>/<version>/<file name>  the item's data, one object per version
///     items/<id>/info/<path>            info files (thumbnail/thumbnail.png)
///     uploads/<id>/<part number>        parts of an upload in progress
///
/// A part goes to the bucket as it arrives, at whichever process; the process that commits
/// joins them into the data object by a multipart upload, reading each part once (hashing it)
/// and sending whole parts as the object's parts, small ones combined until they reach the
/// 5 MiB S3 requires of every part but the last. No package sits whole on a portal machine's
/// disk, except while it is validated (`withLocalCopy`: the validator and SQLite read files).
/// Downloads are ranged GETs streamed to the client as they arrive.
public struct S3ItemFileStore: ItemFileStore {
    public let client: S3Client
    /// This machine's folder for request bodies and the copies the validator reads.
    public let scratch: String

    /// S3's smallest part but the last.
    static let minimumPartBytes = 5 << 20
    /// The most of a part kept in memory: a larger portal part is sent as several.
    static let maximumPartBytes = 64 << 20
    /// A local file larger than this goes up as a multipart upload.
    static let singlePutBytes = 16 << 20

    public init(client: S3Client, scratch: String) throws {
        self.client = client
        self.scratch = scratch
        try Disk.makeDirectory(scratch)
    }

    /// The store for `s3://BUCKET` at `endpoint`, credentials from `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY` and `AWS_REGION` (never from the command line, where `ps`
    /// would show them); the bucket is made when missing.
    public static func open(url: String, endpoint: String, scratch: String, environment: (String) -> String?) async throws -> S3ItemFileStore {
        guard url.lowercased().hasPrefix("s3://") else {
            throw PortalStoreError(kind: .invalidName, path: url, message: "'\(url)' is not an S3 bucket URL (s3://BUCKET)")
        }
        let bucket = String(url.dropFirst(5)).trimming("/")
        guard let key = environment("AWS_ACCESS_KEY_ID"), !key.isEmpty, let secret = environment("AWS_SECRET_ACCESS_KEY"), !secret.isEmpty else {
            throw PortalStoreError(kind: .objectStore(.badConfiguration), path: url, message: "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the object store")
        }
        let region = environment("AWS_REGION") ?? environment("AWS_DEFAULT_REGION") ?? "us-east-1"
        do {
            let client = try S3Client(endpoint: endpoint, bucket: bucket, credentials: .init(accessKey: key, secretKey: secret, region: region))
            try await client.ensureBucket()
            return try S3ItemFileStore(client: client, scratch: scratch)
        } catch let error as S3Error {
            throw PortalStoreError(error, path: url)
        }
    }

    /// Runs an object-store call, its failures as the store's error.
    func s3<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as S3Error { throw PortalStoreError(error, path: "s3://\(client.bucket)") }
    }

    static func dataKey(_ id: String, _ version: String, _ name: String) -> String { "items/\(id)/\(version)/\(name)" }

    func checked(_ id: String) throws -> String {
        guard PortalPaths.isItemId(id) else { throw PortalStoreError(kind: .invalidName, path: client.bucket, message: "'\(id)' is not an item id") }
        return id
    }

    public func stagingFile() throws -> String {
        try Disk.scratchFile(in: scratch)
    }

    /// Sends a local file to `key`: in one request when small, else as a multipart upload.
    func upload(_ path: String, to key: String) async throws {
        let file = try RandomAccessFile(path: path)
        if file.size <= Int64(Self.singlePutBytes) {
            let bytes = try await NIOThreadPool.singleton.runIfActive { try file.read(at: 0, count: Int(file.size)) }
            try await s3 { try await client.put(key, bytes: ByteBuffer(bytes: bytes)) }
            return
        }
        let id = try await s3 { try await client.createMultipartUpload(key) }
        do {
            var etags: [(number: Int, etag: String)] = []
            var offset: Int64 = 0
            while offset < file.size {
                let count = Int(min(Int64(Self.maximumPartBytes), file.size - offset))
                let at = offset
                let bytes = try await NIOThreadPool.singleton.runIfActive { try file.read(at: at, count: count) }
                let number = etags.count + 1
                etags.append((number, try await s3 { try await client.uploadPart(key, uploadId: id, number: number, bytes: ByteBuffer(bytes: bytes)) }))
                offset += Int64(count)
            }
            try await s3 { try await client.completeMultipartUpload(key, uploadId: id, parts: etags) }
        } catch {
            try? await client.abortMultipartUpload(key, uploadId: id)
            throw error
        }
    }

    public func putData(itemId: String, version: String, fileName: String, from path: String) async throws {
        guard PortalPaths.isFileName(fileName), PortalPaths.isFileName(version) else {
            throw PortalStoreError(kind: .invalidName, path: client.bucket, message: "'\(fileName)' is not a file name")
        }
        try await upload(path, to: Self.dataKey(try checked(itemId), version, fileName))
    }

    public func putPart(itemId: String, number: Int, from path: String) async throws {
        guard PortalPaths.isItemId(itemId), number >= 1, number <= 10_000 else {
            throw PortalStoreError(kind: .partOutOfRange, path: client.bucket, message: "part \(number) of '\(itemId)' is out of range (1-10000)")
        }
        try await upload(path, to: "uploads/\(itemId)/\(number)")
    }

    public func joinParts(itemId: String, version: String, fileName: String, parts: [UploadPart], limit: Int64, copyTo: String?) async throws -> JoinedData {
        guard PortalPaths.isFileName(fileName), PortalPaths.isFileName(version) else {
            throw PortalStoreError(kind: .invalidName, path: client.bucket, message: "'\(fileName)' is not a file name")
        }
        let key = Self.dataKey(try checked(itemId), version, fileName)
        // The validator's local copy, written as the bytes pass.
        let copy = try copyTo.map { try Disk.create($0, permissions: 0o600) }
        defer { if let copy { close(copy) } }
        let id = try await s3 { try await client.createMultipartUpload(key) }
        do {
            var digest = SHA256Digest()
            var size: Int64 = 0
            var pending = ByteBuffer()
            var etags: [(number: Int, etag: String)] = []
            func send() async throws {
                let number = etags.count + 1
                let bytes = pending
                etags.append((number, try await s3 { try await client.uploadPart(key, uploadId: id, number: number, bytes: bytes) }))
                pending = ByteBuffer()
            }
            for part in parts {
                let found = try await s3 {
                    try await client.get("uploads/\(itemId)/\(part.number)") { chunk in
                        size += Int64(chunk.readableBytes)
                        if size > limit { throw PortalStoreError(kind: .tooLarge, path: key, message: "the file is larger than \(limit) bytes") }
                        chunk.withUnsafeReadableBytes { digest.update($0) }
                        if let copy, let copyTo { try Disk.write(chunk, to: copy, path: copyTo) }
                        var chunk = chunk
                        pending.writeBuffer(&chunk)
                        if pending.readableBytes >= Self.maximumPartBytes { try await send() }
                    }
                }
                guard found else { throw PortalStoreError(kind: .objectStore(.failed), path: key, message: "part \(part.number) is missing from the bucket") }
                // A whole part, or parts combined, once they reach S3's minimum.
                if pending.readableBytes >= Self.minimumPartBytes { try await send() }
            }
            if pending.readableBytes > 0 || etags.isEmpty { try await send() }
            try await s3 { try await client.completeMultipartUpload(key, uploadId: id, parts: etags) }
            return JoinedData(size: size, sha256: digest.finalizeHex(), copied: copyTo != nil)
        } catch {
            try? await client.abortMultipartUpload(key, uploadId: id)
            throw error
        }
    }

    public func removeParts(itemId: String, numbers: [Int]) async {
        guard PortalPaths.isItemId(itemId) else { return }
        for n in numbers { try? await client.delete("uploads/\(itemId)/\(n)") }
    }

    public func dataFile(itemId: String, version: String, fileName: String, size known: Int64?) async throws -> StoredFile? {
        guard PortalPaths.isItemId(itemId), PortalPaths.isFileName(version), PortalPaths.isFileName(fileName) else { return nil }
        let key = Self.dataKey(itemId, version, fileName)
        if let known { return StoredFile(location: key, name: fileName, size: known) }
        guard let size = try await s3({ try await client.size(key) }) else { return nil }
        return StoredFile(location: key, name: fileName, size: size)
    }

    public func dataFile(itemId: String, version: String) async throws -> StoredFile? {
        guard PortalPaths.isItemId(itemId), PortalPaths.isFileName(version), version != "info" else { return nil }
        let objects = try await s3 { try await client.list(prefix: "items/\(itemId)/\(version)/") }
        return objects.first.map { StoredFile(location: $0.key, name: FileSystem.lastComponent($0.key), size: $0.size) }
    }

    public func read(_ file: StoredFile, range: ClosedRange<Int64>?, _ each: (ByteBuffer) async throws -> Void) async throws {
        let found = try await s3 { try await client.get(file.location, range: range, each) }
        guard found else { throw PortalStoreError(kind: .objectStore(.failed), path: file.location, message: "the object is gone from the bucket") }
    }

    public func randomAccess(_ file: StoredFile) throws -> RandomAccessFile {
        RandomAccessFile(remote: S3RemoteBytes(client: client, key: file.location, size: file.size))
    }

    public func withLocalCopy<T: Sendable>(_ file: StoredFile, _ body: (String) async throws -> T) async throws -> T {
        let path = try stagingFile()
        defer { unlink(path) }
        try await download(file, to: path)
        return try await body(path)
    }

    public func removeData(itemId: String, version: String) async {
        guard PortalPaths.isItemId(itemId), PortalPaths.isFileName(version), version != "info" else { return }
        for object in (try? await client.list(prefix: "items/\(itemId)/\(version)/")) ?? [] { try? await client.delete(object.key) }
    }

    public func putInfo(itemId: String, path: String, bytes: [UInt8]) async throws {
        guard PortalPaths.isInfoPath(path) else { throw PortalStoreError(kind: .invalidName, path: client.bucket, message: "'\(path)' is not an info file path") }
        let key = "items/\(try checked(itemId))/info/\(path)"
        try await s3 { try await client.put(key, bytes: ByteBuffer(bytes: bytes)) }
    }

    public func infoFile(itemId: String, path: String) async throws -> StoredFile? {
        guard PortalPaths.isItemId(itemId), PortalPaths.isInfoPath(path) else { return nil }
        let key = "items/\(itemId)/info/\(path)"
        guard let size = try await s3({ try await client.size(key) }) else { return nil }
        return StoredFile(location: key, name: String(path.split(separator: "/").last ?? ""), size: size)
    }

    public func removeInfo(itemId: String, path: String) async {
        guard PortalPaths.isItemId(itemId), PortalPaths.isInfoPath(path) else { return }
        try? await client.delete("items/\(itemId)/info/\(path)")
    }

    func objectKey(_ itemId: String, _ name: String) throws -> String {
        guard PortalPaths.isInfoPath(name), name.hasPrefix("sync/") else {
            throw PortalStoreError(kind: .invalidName, path: client.bucket, message: "'\(name)' is not an item object name")
        }
        return "items/\(try checked(itemId))/\(name)"
    }

    public func putObject(itemId: String, name: String, from path: String) async throws {
        try await upload(path, to: try objectKey(itemId, name))
    }

    public func object(itemId: String, name: String) async throws -> StoredFile? {
        guard let key = try? objectKey(itemId, name) else { return nil }
        guard let size = try await s3({ try await client.size(key) }) else { return nil }
        return StoredFile(location: key, name: FileSystem.lastComponent(name), size: size)
    }

    public func removeObject(itemId: String, name: String) async {
        guard let key = try? objectKey(itemId, name) else { return }
        try? await client.delete(key)
    }

    public func remove(itemId: String) async {
        guard PortalPaths.isItemId(itemId) else { return }
        for prefix in ["items/\(itemId)/", "uploads/\(itemId)/"] {
            for object in (try? await client.list(prefix: prefix)) ?? [] { try? await client.delete(object.key) }
        }
        for upload in (try? await client.multipartUploads(prefix: "items/\(itemId)/")) ?? [] {
            try? await client.abortMultipartUpload(upload.key, uploadId: upload.uploadId)
        }
    }

    @discardableResult
    public func sweep(keeping: [String: String], olderThan age: Int64) async throws -> Int {
        let before = Int64(time(nil)) - age
        var removed = 0
        try await s3 {
            for object in try await client.list(prefix: "items/") + client.list(prefix: "uploads/") {
                let parts = object.key.split(separator: "/", maxSplits: 3).map(String.init)
                guard parts.count >= 3, (Self.epochSeconds(object.lastModified) ?? 0) <= before else { continue }
                let kept = keeping[parts[1]]
                let stale = parts[0] == "uploads" ? kept == nil : (kept == nil || (parts[2] != "info" && parts[2] != "sync" && parts[2] != kept))
                if stale {
                    try await client.delete(object.key)
                    removed += 1
                }
            }
            // A process killed while joining parts leaves a multipart upload nobody completes.
            for upload in try await client.multipartUploads(prefix: "items/") where (Self.epochSeconds(upload.initiated) ?? 0) <= before {
                try await client.abortMultipartUpload(upload.key, uploadId: upload.uploadId)
                removed += 1
            }
        }
        for name in FileSystem.names(in: scratch) {
            var st = stat()
            guard lstat("\(scratch)/\(name)", &st) == 0, Int64(st.st_mtim.tv_sec) <= before else { continue }
            FileSystem.removeTree("\(scratch)/\(name)")
            removed += 1
        }
        return removed
    }

    /// Seconds since 1970 of an ISO 8601 time as S3 lists it (`2026-11-26T04:22:58.000Z`).
    static func epochSeconds(_ text: String) -> Int64? {
        let digits = text.utf8.split { $0 < 0x30 || $0 > 0x39 }.map { Int(String(decoding: $0, as: UTF8.self)) ?? 0 }
        guard digits.count >= 6 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(digits[0] - 1900)
        parts.tm_mon = Int32(digits[1] - 1)
        parts.tm_mday = Int32(digits[2])
        parts.tm_hour = Int32(digits[3])
        parts.tm_min = Int32(digits[4])
        parts.tm_sec = Int32(digits[5])
        return Int64(timegm(&parts))
    }
}

extension PortalStoreError {
    init(_ error: S3Error, path: String) {
        self.init(kind: .objectStore(error.kind), path: path, message: error.message)
    }
}
