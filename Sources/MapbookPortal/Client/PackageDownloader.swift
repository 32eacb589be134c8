import AsyncHTTPClient
import MapbookPackage
import MapbookSupport
import NIOCore
import NIOHTTP1
import MapbookLibrary
import MapbookPortalAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloads a portal item's package into the device library: streamed to
/// `downloads/<itemId>.partial`, resumed with a Range request after an interruption, checked
/// (size, SHA-256 against the portal's ETag), then committed with its record, replacing an
/// earlier download atomically (DESIGN.md section 7, docs/LIBRARY.md).
public struct PackageDownloader: Sendable {
    public let client: PortalClient
    public let library: DeviceLibrary

    public init(client: PortalClient, library: DeviceLibrary) {
        self.client = client
        self.library = library
    }

    /// How far a download is.
    public struct Progress: Sendable {
        /// Bytes in the partial file, those of an earlier attempt included.
        public var done: Int64
        /// The file's size, when the portal said.
        public var total: Int64?
        /// Where this attempt started (0 unless resuming).
        public var resumedFrom: Int64
    }

    /// What a download did.
    public struct Outcome: Sendable {
        public var item: PortalItem
        public var record: DownloadRecord
        public var entry: LibraryEntry
        /// The bytes an earlier, interrupted attempt had already fetched (0: from the start).
        public var resumedFrom: Int64
        /// The bytes this call fetched from the portal.
        public var fetchedBytes: Int64
        /// Whether the file was built from the version held, fetching only what differs.
        public var byDelta: Bool

        /// What a viewer says when it is done: "downloaded 'T' (7 MB)", or for an update by
        /// delta "updated 'T' by delta: fetched 48 KiB of 6.7 MiB", and where a resumed
        /// download went on from.
        public var summary: String {
            var line = byDelta
                ? "updated '\(record.title)' by delta: fetched \(Format.bytes(fetchedBytes)) of \(Format.bytes(record.size))"
                : "downloaded '\(record.title)' (\(Format.bytes(record.size)))"
            if resumedFrom > 0 { line += ", resumed at \(Format.bytes(resumedFrom))" }
            return line
        }
    }

    /// Downloads `item`'s data and stores it. `progress` is called as bytes arrive.
    ///
    /// An interruption keeps what arrived for the next call to resume. A file whose size or
    /// hash is wrong is deleted, so the next call starts over, and an error says so.
    public func download(_ item: PortalItem, progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Outcome {
        let id = item.id
        let partial = try library.partialDownloadPath(itemId: id)
        if let free = library.freeBytes(), item.size > 0, free < item.size - (FileSystem.size(partial) ?? 0) {
            let short = (item.size - (FileSystem.size(partial) ?? 0) - free + (1 << 20) - 1) >> 20
            throw PortalClientError(
                .noSpace, url: dataURL(id),
                message: "'\(item.title)' needs \(Format.bytes(item.size)) and the library's disk has \(Format.bytes(free)) free: free \(short) MB more (the version held stays as it is)")
        }
        var attempt = 0
        let delta = try await deltaUpdate(item, partial: partial, progress: progress)
        while true {
            attempt += 1
            let have = FileSystem.kind(partial) == .file ? (FileSystem.size(partial) ?? 0) : 0
            let validator = have > 0 ? try library.partialDownloadETag(itemId: id) : nil
            let fetched: Fetched
            if let delta, attempt == 1 {
                fetched = delta.fetched
            } else {
                fetched = try await fetch(item, to: partial, have: have, validator: validator, progress: progress)
            }
            switch fetched {
            case .restart where attempt < 3:
                try library.discardPartialDownload(itemId: id)
                continue
            case .restart:
                throw PortalClientError(.transfer, url: dataURL(id), message: "the portal keeps refusing the byte range to resume from; run the command again to download from the start")
            case .done(let size, let sha256, let etag, let resumedFrom):
                let record = DownloadRecord(
                    portalUrl: client.portalURL, itemId: id, title: item.title, itemModifiedAtDownload: item.modified,
                    downloadedAt: PortalClient.now(), size: size, sha256: sha256, etag: etag)
                let entry: LibraryEntry
                do {
                    entry = try library.commitDownload(itemId: id, from: partial, record: record)
                } catch {
                    // A verified file that still cannot be stored (not a package, say) would fail
                    // the same way when resumed: start the next try afresh.
                    _ = try? library.discardPartialDownload(itemId: id)
                    throw error
                }
                // What was downloaded is the item's latest version: the last check knows it now.
                try? library.markCurrent(itemId: id)
                let (bytes, byDelta) = attempt == 1 ? delta.map { ($0.fetchedBytes, true) } ?? (size - resumedFrom, false) : (size - resumedFrom, false)
                if byDelta {
                    // A whole download tells the portal which version the device holds; ranged
                    // requests do not, so the device says it as an update check does.
                    _ = try? await client.call("content/items/\(FormEncoding.percentEncode(id))", headers: [(PortalClient.holdsHeader, String(item.modified))])
                }
                return Outcome(item: item, record: record, entry: entry, resumedFrom: resumedFrom, fetchedBytes: bytes, byDelta: byDelta)
            }
        }
    }

    enum Fetched {
        /// The partial file is complete and checked.
        case done(size: Int64, sha256: String, etag: String?, resumedFrom: Int64)
        /// The partial file cannot be resumed; remove it and start over.
        case restart
    }

    func dataURL(_ id: String) -> String { "\(client.restURL)/content/items/\(id)/data" }

    /// One request for the data: the rest of the file after `have` bytes, or all of it.
    func fetch(_ item: PortalItem, to partial: String, have: Int64, validator: String?, progress: (@Sendable (Progress) -> Void)?) async throws -> Fetched {
        let url = dataURL(item.id)
        var request = HTTPClientRequest(url: url)
        if have > 0 {
            request.headers.add(name: "Range", value: "bytes=\(have)-")
            // A different version answers with the whole file (200), never with its bytes
            // spliced onto ours.
            if let validator { request.headers.add(name: "If-Range", value: validator) }
        }
        let credential = try await client.currentCredential()
        let response = try await client.send(request, credential: credential, deadline: .distantFuture)

        let status = response.status.code
        if status == 416 {
            _ = try? await response.body.collect(upTo: 1 << 20)
            // Nothing past the bytes we have, of the version we asked about (If-Range): an
            // earlier run got every byte and stopped before storing them. They are checked
            // against the ETag, not fetched again.
            let unsatisfied = response.headers.first(name: "Content-Range") ?? ""
            if have > 0, let validator, Self.sha256(fromETag: validator) != nil, unsatisfied.hasPrefix("bytes */"), Int64(unsatisfied.dropFirst(8)) == have {
                let hash = try hashOf(partial, first: have)
                return try check(item, partial: partial, size: have, total: have, sha256: hash, etag: validator, resumedFrom: have)
            }
            return .restart
        }
        let contentType = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
        if contentType.contains("json") || contentType.contains("text/html") || !(status == 200 || status == 206) {
            // The sharing API answers a refused download with its JSON error, HTTP 200.
            let bytes = try await PortalClient.collect(response, url: url, limit: 1 << 20)
            if let value = try? JSONParser.parse(bytes), let error = PortalError(response: value) {
                if error.code == 498 || error.code == 499 {
                    throw client.signInAgain(credential, because: "the portal refused the download (\(error.message))")
                }
                throw error
            }
            if status == 200, contentType.contains("json") {
                // A JSON item's data is JSON: keep it as it came.
                return try write(ByteBuffer(bytes: bytes), item: item, to: partial, have: 0, total: Int64(bytes.count), etag: nil, progress: progress)
            }
            throw PortalClientError(.badResponse, url: url, message: "answered HTTP \(status) \(response.status.reasonPhrase) instead of the item's file")
        }

        let etag = response.headers.first(name: "ETag")
        var start: Int64 = 0
        var total: Int64?
        if status == 206 {
            guard let range = response.headers.first(name: "Content-Range").flatMap(Self.parseContentRange), range.start == have else {
                _ = try? await response.body.collect(upTo: 0)
                return .restart
            }
            start = have
            total = range.total
        } else if let length = response.headers.first(name: "Content-Length").flatMap({ Int64($0) }) {
            total = length
        }
        if total == nil, item.size > 0 { total = item.size }
        // Keep the validator before the bytes it stands for, so that an interruption at any
        // point resumes against the right version.
        try library.setPartialDownloadETag(etag, itemId: item.id)
        return try await stream(response, item: item, to: partial, from: start, total: total, etag: etag, progress: progress)
    }

    /// Appends the response body to the partial file (truncated first when `from` is 0),
    /// hashing as it goes, then checks size and hash.
    func stream(_ response: HTTPClientResponse, item: PortalItem, to partial: String, from start: Int64, total: Int64?, etag: String?, progress: (@Sendable (Progress) -> Void)?) async throws -> Fetched {
        let url = dataURL(item.id)
        var digest = SHA256Digest()
        if start > 0 {
            // The bytes of the earlier attempt count towards the hash.
            guard (FileSystem.size(partial) ?? 0) >= start else { return .restart }
            try hash(partial, first: start, into: &digest)
        }
        let file = try PartialFile(path: partial, truncateTo: start)
        var done = start
        progress?(Progress(done: done, total: total, resumedFrom: start))
        do {
            for try await buffer in response.body {
                try buffer.withUnsafeReadableBytes { raw in
                    digest.update(raw)
                    try file.write(raw)
                }
                done += Int64(buffer.readableBytes)
                progress?(Progress(done: done, total: total, resumedFrom: start))
            }
        } catch let error as PortalClientError {
            throw error
        } catch {
            throw PortalClientError(
                .transfer, url: url,
                message: "the download was interrupted after \(done)\(total.map { " of \($0)" } ?? "") bytes (\(PortalClient.explain(error))); run the command again to resume")
        }
        try file.close()
        return try check(item, partial: partial, size: done, total: total, sha256: digest.finalizeHex(), etag: etag, resumedFrom: start)
    }

    /// Writes a small body that was read whole.
    func write(_ buffer: ByteBuffer, item: PortalItem, to partial: String, have: Int64, total: Int64, etag: String?, progress: (@Sendable (Progress) -> Void)?) throws -> Fetched {
        let file = try PartialFile(path: partial, truncateTo: 0)
        var digest = SHA256Digest()
        try buffer.withUnsafeReadableBytes { raw in
            digest.update(raw)
            try file.write(raw)
        }
        try file.close()
        progress?(Progress(done: total, total: total, resumedFrom: 0))
        return try check(item, partial: partial, size: total, total: total, sha256: digest.finalizeHex(), etag: etag, resumedFrom: 0)
    }

    /// The size against what the portal announced, the hash against a SHA-256 ETag.
    func check(_ item: PortalItem, partial: String, size: Int64, total: Int64?, sha256: String, etag: String?, resumedFrom: Int64) throws -> Fetched {
        let url = dataURL(item.id)
        if let total, size < total {
            throw PortalClientError(.transfer, url: url, message: "the download stopped after \(size) of \(total) bytes; run the command again to resume")
        }
        if let total, size > total {
            try library.discardPartialDownload(itemId: item.id)
            throw PortalClientError(.transfer, url: url, message: "sent \(size) bytes, more than the \(total) it announced; the file was deleted; run the command again")
        }
        if let expected = etag.flatMap(Self.sha256(fromETag:)), expected != sha256 {
            try library.discardPartialDownload(itemId: item.id)
            let how = resumedFrom > 0 ? " (the first \(resumedFrom) bytes came from an earlier, interrupted download)" : ""
            throw PortalClientError(
                .transfer, url: url,
                message: "the downloaded file's SHA-256 is \(sha256), but the portal's ETag says \(expected)\(how): the download is damaged and was deleted; run the command again to download it from the start")
        }
        return .done(size: size, sha256: sha256, etag: etag, resumedFrom: resumedFrom)
    }

    /// Adds the first `count` bytes of the partial download to `digest`.
    func hash(_ partial: String, first count: Int64, into digest: inout SHA256Digest) throws {
        do {
            try ByteRange(file: try RandomAccessFile(path: partial), offset: 0, length: count).forEachChunk { digest.update($0) }
        } catch {
            throw PortalClientError(.transfer, url: partial, message: "cannot read the partial download: \(error)")
        }
    }

    /// The SHA-256 of the first `count` bytes of the partial download, in hex.
    func hashOf(_ partial: String, first count: Int64) throws -> String {
        var digest = SHA256Digest()
        try hash(partial, first: count, into: &digest)
        return digest.finalizeHex()
    }

    /// The SHA-256 an ETag stands for, when it is one: `"<64 hex digits>"`, weak or strong
    /// (the Mapbook portal's ETags are the file's SHA-256). Other portals' ETags are opaque.
    public static func sha256(fromETag etag: String) -> String? {
        var text = Substring(etag)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        let hex = text.lowercased()
        return SHA256Digest.isHex(hex) ? hex : nil
    }

    /// `bytes START-END/TOTAL` (TOTAL may be `*`).
    static func parseContentRange(_ value: String) -> (start: Int64, end: Int64, total: Int64?)? {
        let text = value.trimmingPrefix("bytes").drop(while: { $0 == " " })
        let parts = text.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let range = parts[0].split(separator: "-", maxSplits: 1)
        guard range.count == 2, let start = Int64(range[0]), let end = Int64(range[1]), end >= start else { return nil }
        return (start, end, Int64(parts[1]))
    }
}
