import AsyncHTTPClient
import MapbookLibrary
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport

#if canImport(Glibc)
import Glibc
#endif

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

    func infoURL(_ id: String, _ path: String) -> String { "\(client.restURL)/content/items/\(id)/info/\(path)" }

    /// Builds `item`'s current version into `partial` from the version the library holds; nil
    /// when there is no delta to be had, and the whole file is to be downloaded.
    func deltaUpdate(_ item: PortalItem, partial: String, progress: (@Sendable (Progress) -> Void)?) async throws -> Delta? {
        guard let old = library.downloadedPackage(itemId: item.id), let (layout, layoutBytes) = try await fetchLayout(item.id),
            let held = try? PackageLayout.read(path: old, fileSHA256: library.downloads().first { $0.itemId == item.id }?.sha256)
        else { return nil }
        let etag = "\"\(layout.sha256)\""
        let (patches, indexBytes) = try await fetchPatchIndex(item.id)
        let (blocked, blocksBytes) = try await fetchBlocks(item.id, layout, held: held, patches: patches)
        let plan = DeltaPlan(new: blocked, old: held, patches: patches)
        var have: Int64 = 0
        if FileSystem.kind(partial) == .file, try library.partialDownloadETag(itemId: item.id) == etag {
            have = min(FileSystem.size(partial) ?? 0, layout.size)
        }
        // The version the bytes stand for is kept before them, as a whole download keeps it.
        try library.setPartialDownloadETag(etag, itemId: item.id)
        let file = try PartialFile(path: partial, truncateTo: have)
        let source = try RandomAccessFile(path: old)
        var position: Int64 = 0
        var fetched = layoutBytes + indexBytes + blocksBytes
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
            case .patch(let entry):
                if let patchBytes = try await buildPatched(item.id, entry, from: source, skip: skip, into: file, scratch: partial + ".patch") {
                    fetched += patchBytes
                } else {
                    // A patch that does not give the entry: its bytes fetched instead.
                    guard try await fetchRange(item.id, offset: entry.offset + skip, length: entry.size - skip, etag: etag, into: file) else {
                        try file.close()
                        try library.discardPartialDownload(itemId: item.id)
                        return nil
                    }
                    fetched += entry.size - skip
                }
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
        guard let bytes = try await fetchInfo(id, "mapbook/layout.json"), let value = try? JSONParser.parse(bytes), PortalError(response: value) == nil,
            let layout = PackageLayout(json: value)
        else { return nil }
        return (layout, Int64(bytes.count))
    }

    /// The item's entry patches and the index's size; an empty index when it has none.
    func fetchPatchIndex(_ id: String) async throws -> (PatchIndex, Int64) {
        guard let bytes = try await fetchInfo(id, PatchIndex.path) else { return (PatchIndex(), 0) }
        guard let value = try? JSONParser.parse(bytes), PortalError(response: value) == nil, let index = PatchIndex(json: value) else {
            return (PatchIndex(), Int64(bytes.count))
        }
        return (index, Int64(bytes.count))
    }

    /// `layout` with the block hashes of each changed entry that no patch gives and that the
    /// version held has an entry of the same name for (what a block comparison needs), and
    /// the bytes fetched for them. An entry whose blocks file is missing or wrong is fetched whole.
    func fetchBlocks(_ id: String, _ layout: PackageLayout, held: PackageLayout, patches: PatchIndex) async throws -> (PackageLayout, Int64) {
        var layout = layout
        var fetched: Int64 = 0
        let hashes = Set(held.entries.map(\.sha256))
        let names = Set(held.entries.filter { !$0.blocks.isEmpty }.map(\.name))
        for (i, e) in layout.entries.enumerated() where e.blockCount > 0 && !hashes.contains(e.sha256) && names.contains(e.name) {
            guard patches.chain(to: e.sha256, from: hashes) == nil, let bytes = try await fetchInfo(id, PackageLayout.blocksPath(e.sha256), limit: e.blockCount * 8) else { continue }
            fetched += Int64(bytes.count)
            layout.entries[i].blocks = PackageLayout.blocks(bytes, of: e) ?? []
        }
        return (layout, fetched)
    }

    /// An info file's bytes; nil when the portal answers with anything but the file.
    func fetchInfo(_ id: String, _ path: String, limit: Int = 64 << 20) async throws -> [UInt8]? {
        let url = infoURL(id, path)
        let response = try await client.send(HTTPClientRequest(url: url), credential: try await client.currentCredential())
        let bytes = try await PortalClient.collect(response, url: url, limit: limit)
        return response.status.code == 200 ? bytes : nil
    }

    /// Builds a changed entry by its patches from the entry held, into `scratch` (each step's
    /// result checked by its hash), then writes it past `skip` bytes to `file`. Returns the
    /// bytes fetched, or nil when a patch is missing or does not give the entry (the caller
    /// fetches its bytes instead). A patch's fetch that breaks is an error like any transfer.
    func buildPatched(_ id: String, _ entry: DeltaPlan.PatchedEntry, from source: RandomAccessFile, skip: Int64, into file: PartialFile, scratch: String) async throws -> Int64? {
        var fetched: Int64 = 0
        var input = try source.map(offset: entry.oldOffset, length: Int(entry.oldSize))
        defer { unlink(scratch) }
        for (step, patch) in entry.chain.enumerated() {
            guard let bytes = try await fetchInfo(id, patch.path, limit: Int(patch.size)), bytes.count == Int(patch.size) else { return nil }
            fetched += patch.size
            // Each step's result in a file of its own (the next step's input is mapped).
            let output = scratch + (step % 2 == 0 ? "-a" : "-b")
            defer { if step < entry.chain.count - 1 { unlink(output) } }
            let out = try PartialFile(path: output, truncateTo: 0)
            var digest = SHA256Digest()
            do {
                try bytes.withUnsafeBytes { patchBytes in
                    try input.withUnsafeBytes { inputBytes in
                        try EntryPatch.apply(patchBytes, to: inputBytes, size: patch.toSize, path: infoURL(id, patch.path)) { chunk in
                            digest.update(chunk)
                            try out.write(chunk)
                        }
                    }
                }
                try out.close()
            } catch is ArchiveError {
                unlink(output)
                return nil
            }
            guard digest.finalizeHex() == patch.to else {
                unlink(output)
                return nil
            }
            let built = try RandomAccessFile(path: output)
            input = try built.map(offset: 0, length: Int(patch.toSize))
            if step == entry.chain.count - 1 {
                defer { unlink(output) }
                guard patch.to == entry.sha256 else { return nil }
                try ByteRange(file: built, offset: skip, length: patch.toSize - skip).forEachChunk(chunkSize: 256 << 10) { try file.write($0) }
            }
        }
        return fetched
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
