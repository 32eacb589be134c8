import AsyncHTTPClient
import MapbookLibrary
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport

/// Updates by delta (issue 35, docs/PORTAL.md "Updates by delta"): the new version is built in
/// the partial download from the version the library holds, fetching only the bytes that
/// differ by ranged requests, then checked by its SHA-256 like any download. The version held
/// stays usable until the new one is complete and checked; an interrupted build resumes where
/// it stopped (its bytes are the new version's first bytes, whichever way they came); any
/// doubt (no layout, a hash that does not match, a version that changed meanwhile) falls back
/// to the whole download.
extension PackageDownloader {
    struct Delta {
        var fetched: Fetched
        /// The bytes fetched: the layout and the ranges.
        var fetchedBytes: Int64
    }

    func layoutURL(_ id: String) -> String { "\(client.restURL)/content/items/\(id)/info/mapbook/layout.json" }

    /// Builds `item`'s current version into `partial` from the version the library holds; nil
    /// when there is no delta to be had, and the whole file is to be downloaded.
    func deltaUpdate(_ item: PortalItem, partial: String, progress: (@Sendable (Progress) -> Void)?) async throws -> Delta? {
        guard let old = library.downloadedPackage(itemId: item.id), let (layout, layoutBytes) = try await fetchLayout(item.id),
            let held = try? PackageLayout.read(path: old, fileSHA256: library.downloads().first { $0.itemId == item.id }?.sha256)
        else { return nil }
        let etag = "\"\(layout.sha256)\""
        let plan = DeltaPlan(new: layout, old: held)
        var have: Int64 = 0
        if FileSystem.kind(partial) == .file, try library.partialDownloadETag(itemId: item.id) == etag {
            have = min(FileSystem.size(partial) ?? 0, layout.size)
        }
        // The version the bytes stand for is kept before them, as a whole download keeps it.
        try library.setPartialDownloadETag(etag, itemId: item.id)
        let file = try PartialFile(path: partial, truncateTo: have)
        let source = try RandomAccessFile(path: old)
        var position: Int64 = 0
        var fetched = layoutBytes
        for run in plan.runs {
            let end = position + run.length
            defer { position = end }
            guard end > have else { continue }
            let skip = max(0, have - position)
            switch run {
            case .copy(let offset, let length):
                // In 256 KiB writes: a run killed meanwhile keeps what it wrote.
                try ByteRange(file: source, offset: offset + skip, length: length - skip).forEachChunk(chunkSize: 256 << 10) { try file.write($0) }
            case .fetch(let offset, let length):
                guard try await fetchRange(item.id, offset: offset + skip, length: length - skip, etag: etag, into: file) else {
                    // The portal has another version now: start again, whole.
                    try file.close()
                    try library.discardPartialDownload(itemId: item.id)
                    return nil
                }
                fetched += length - skip
            }
            progress?(Progress(done: end, total: layout.size, resumedFrom: have))
        }
        try file.close()
        guard try hashOf(partial, first: layout.size) == layout.sha256, FileSystem.size(partial) == layout.size else {
            // Never a file that differs from the published one: the whole file instead.
            try library.discardPartialDownload(itemId: item.id)
            return nil
        }
        return Delta(fetched: .done(size: layout.size, sha256: layout.sha256, etag: etag, resumedFrom: have), fetchedBytes: fetched)
    }

    /// The current version's layout and its size in bytes; nil when the portal offers none
    /// (ArcGIS Online, or a Mapbook portal's item stored before layouts were kept).
    func fetchLayout(_ id: String) async throws -> (PackageLayout, Int64)? {
        let url = layoutURL(id)
        let response = try await client.send(HTTPClientRequest(url: url), credential: try await client.currentCredential())
        let bytes = try await PortalClient.collect(response, url: url)
        guard response.status.code == 200, let value = try? JSONParser.parse(bytes), PortalError(response: value) == nil,
            let layout = PackageLayout(json: value)
        else { return nil }
        return (layout, Int64(bytes.count))
    }

    /// Fetches `length` bytes at `offset` of the version `etag` into `file`; false when the
    /// portal answers with another version.
    func fetchRange(_ id: String, offset: Int64, length: Int64, etag: String, into file: PartialFile) async throws -> Bool {
        let url = dataURL(id)
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Range", value: "bytes=\(offset)-\(offset + length - 1)")
        request.headers.add(name: "If-Range", value: etag)
        let response = try await client.send(request, credential: try await client.currentCredential(), deadline: .distantFuture)
        guard response.status.code == 206, let range = response.headers.first(name: "Content-Range").flatMap(Self.parseContentRange),
            range.start == offset, range.end == offset + length - 1
        else {
            _ = try? await response.body.collect(upTo: 0)
            return false
        }
        var received: Int64 = 0
        do {
            for try await buffer in response.body {
                received += Int64(buffer.readableBytes)
                guard received <= length else { return false }
                try buffer.withUnsafeReadableBytes { try file.write($0) }
            }
        } catch {
            throw PortalClientError(
                .transfer, url: url, message: "the update was interrupted (\(PortalClient.explain(error))); run the command again to resume where it stopped")
        }
        guard received == length else {
            throw PortalClientError(.transfer, url: url, message: "the portal sent \(received) of \(length) bytes; run the command again to resume where it stopped")
        }
        return true
    }
}
