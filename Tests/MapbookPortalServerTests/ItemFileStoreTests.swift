import Foundation
import MapbookPackage
import MapbookPortalAPI
import MapbookTestSupport
import NIOCore
import Testing

@testable import MapbookPortalServer

/// The item file stores against one suite: the data folder and a bucket of a real S3 server
/// (OpenStack Swift's s3api) keep, join, stream and sweep files alike.
@Suite struct ItemFileStoreTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case disk, s3
        var testDescription: String { rawValue }
    }

    static let item = String(repeating: "ab", count: 16)

    func store(_ kind: Kind, _ dir: String) async throws -> any ItemFileStore {
        switch kind {
        case .disk: return try DiskItemFileStore(root: dir + "/data")
        case .s3:
            let (bucket, server) = try S3Server.bucket()
            return try await S3ItemFileStore.open(url: bucket, endpoint: server.endpoint, scratch: dir + "/scratch", environment: { getenv($0).map { String(cString: $0) } })
        }
    }

    func write(_ bytes: [UInt8], _ dir: String, _ name: String) throws -> String {
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func read(_ store: any ItemFileStore, _ file: StoredFile, _ range: ClosedRange<Int64>? = nil) async throws -> [UInt8] {
        var out: [UInt8] = []
        try await store.read(file, range: range) { out.append(contentsOf: $0.readableBytesView) }
        return out
    }

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// A file stored whole reads back whole and by ranges (first byte, last byte, middle).
    @Test(S3Server.required, arguments: Kind.allCases)
    func storesAndReadsRanges(_ kind: Kind) async throws {
        try await withTemporaryDirectory { dir in
            let store = try await store(kind, dir)
            let bytes = Self.bytes(300_001, seed: 1)
            try await store.putData(itemId: Self.item, version: "v1", fileName: "Trees.mmpk", from: try write(bytes, dir, "in"))
            let file = try #require(try await store.dataFile(itemId: Self.item, version: "v1", fileName: "Trees.mmpk", size: nil))
            #expect(file.size == Int64(bytes.count))
            #expect(try await read(store, file) == bytes)
            #expect(try await read(store, file, 0...0) == [bytes[0]])
            #expect(try await read(store, file, 300_000...300_000) == [bytes[300_000]])
            #expect(try await read(store, file, 1000...270_999) == Array(bytes[1000...270_999]))
            #expect(try await store.dataFile(itemId: Self.item, version: "v2", fileName: "Trees.mmpk", size: nil) == nil)
            #expect(try await store.dataFile(itemId: Self.item, version: "v1", fileName: "Other.mmpk", size: nil) == nil)
            // The local copy holds the same bytes.
            let copied = try await store.withLocalCopy(file) { path in try Data(contentsOf: URL(fileURLWithPath: path)) }
            #expect(Array(copied) == bytes)
        }
    }

    /// A version's file is found without its name (a multipart update names the item's new
    /// file before its parts arrive), and an info file is removed (an entry patch pruned).
    @Test(S3Server.required, arguments: Kind.allCases)
    func findsAVersionsFileAndRemovesAnInfoFile(_ kind: Kind) async throws {
        try await withTemporaryDirectory { dir in
            let store = try await store(kind, dir)
            let bytes = Self.bytes(5_000, seed: 3)
            try await store.putData(itemId: Self.item, version: "v1", fileName: "Old Name.mmpk", from: try write(bytes, dir, "in"))
            let file = try #require(try await store.dataFile(itemId: Self.item, version: "v1"))
            #expect(file.name == "Old Name.mmpk" && file.size == 5_000)
            #expect(try await read(store, file) == bytes)
            #expect(try await store.dataFile(itemId: Self.item, version: "v2") == nil)
            try await store.putInfo(itemId: Self.item, path: "mapbook/patches/a-b.zst", bytes: [1, 2, 3])
            #expect(try await store.infoBytes(itemId: Self.item, path: "mapbook/patches/a-b.zst") == [1, 2, 3])
            await store.removeInfo(itemId: Self.item, path: "mapbook/patches/a-b.zst")
            #expect(try await store.infoFile(itemId: Self.item, path: "mapbook/patches/a-b.zst") == nil)
        }
    }

    /// A stored file read in place (the map previews' ranged reads): small reads, reads
    /// across blocks and a read of 10 MiB give the file's bytes; in the bucket, the large read
    /// is not kept in the shared block cache, which would push out what maps read again.
    @Test(S3Server.required, arguments: Kind.allCases)
    func readsInPlaceLargeAndSmall(_ kind: Kind) async throws {
        try await withTemporaryDirectory { dir in
            let store = try await store(kind, dir)
            let bytes = Self.bytes(12 << 20, seed: 7)
            try await store.putData(itemId: Self.item, version: "v1", fileName: "Big.mmpk", from: try write(bytes, dir, "in"))
            let file = try #require(try await store.dataFile(itemId: Self.item, version: "v1", fileName: "Big.mmpk", size: nil))
            let access = try store.randomAccess(file)
            for (offset, count) in [(0, 1), (131_000, 2_000), (1 << 20, 300_000), (1_000_001, 10 << 20), ((12 << 20) - 5, 5)] {
                var out = [UInt8](repeating: 0, count: count)
                try out.withUnsafeMutableBytes { try access.read(into: $0, at: Int64(offset)) }
                #expect(out == Array(bytes[offset..<(offset + count)]), "\(count) bytes at \(offset)")
            }
            if kind == .s3, let remote = access.remote as? S3RemoteBytes {
                #expect(S3RemoteBytes.cache.block(remote.cacheKey, (1 << 20) / S3RemoteBytes.blockSize) != nil, "a small read is cached")
                #expect(S3RemoteBytes.cache.block(remote.cacheKey, 40) == nil, "the 10 MiB read is not")
            }
            var past = [UInt8](repeating: 0, count: 10)
            #expect(throws: ArchiveError.self) { try past.withUnsafeMutableBytes { try access.read(into: $0, at: Int64(bytes.count) - 5) } }
        }
    }

    /// Parts of every size (one larger than S3's 5 MiB minimum, small ones, a tiny last one)
    /// join into the data with the SHA-256 of the whole; the old version stays until removed.
    @Test(S3Server.required, arguments: Kind.allCases)
    func joinsPartsOfAnySize(_ kind: Kind) async throws {
        try await withTemporaryDirectory { dir in
            let store = try await store(kind, dir)
            let sizes = [6 << 20, 1024, 2 << 20, 3 << 20, 100]
            var whole: [UInt8] = []
            var parts: [UploadPart] = []
            for (i, size) in sizes.enumerated() {
                let bytes = Self.bytes(size, seed: UInt64(i + 10))
                whole += bytes
                try await store.putPart(itemId: Self.item, number: i + 1, from: try write(bytes, dir, "part\(i)"))
                parts.append(UploadPart(number: i + 1, size: Int64(size)))
            }
            try await store.putData(itemId: Self.item, version: "old", fileName: "a.mmpk", from: try write([1, 2, 3], dir, "old"))
            let joined = try await store.joinParts(itemId: Self.item, version: "new", fileName: "a.mmpk", parts: parts, limit: 1 << 30, copyTo: dir + "/copy")
            #expect(joined.size == Int64(whole.count) && joined.sha256 == SHA256Digest.hex(of: whole))
            // A store whose files are elsewhere writes the validator's copy in the same pass.
            #expect(joined.copied == (kind == .s3))
            if joined.copied { #expect(try readFile(dir + "/copy") == whole) }
            let file = try #require(try await store.dataFile(itemId: Self.item, version: "new", fileName: "a.mmpk", size: nil))
            #expect(try await read(store, file) == whole)
            #expect(try await store.dataFile(itemId: Self.item, version: "old", fileName: "a.mmpk", size: nil) != nil)
            await store.removeData(itemId: Self.item, version: "old")
            #expect(try await store.dataFile(itemId: Self.item, version: "old", fileName: "a.mmpk", size: nil) == nil)
            await store.removeParts(itemId: Self.item, numbers: parts.map(\.number))
            // Parts once removed cannot be joined again.
            await #expect(throws: (any Error).self) { try await store.joinParts(itemId: Self.item, version: "again", fileName: "a.mmpk", parts: parts, limit: 1 << 30, copyTo: nil) }
            #expect(try await store.dataFile(itemId: Self.item, version: "again", fileName: "a.mmpk", size: nil) == nil)
            if kind == .s3 {
                // The S3 server saw a multipart upload of three parts: the 6 MiB part alone,
                // the three small ones combined (5 MiB and more), the 100 bytes last.
                let bucket = (store as! S3ItemFileStore).client.bucket
                let isPartPut: (Substring) -> Bool = { $0.contains("PUT /\(bucket)/items/\(Self.item)/new/") && $0.contains("partNumber") }
                let partPuts = try S3Server.logLines { $0.filter(isPartPut).count >= 3 }.filter(isPartPut)
                #expect(partPuts.count == 3, "\(partPuts)")
            }
        }
    }

    /// Joining stops at the limit with a `tooLarge` error and leaves no data.
    @Test(S3Server.required, arguments: Kind.allCases)
    func joiningRefusesTooLargeFiles(_ kind: Kind) async throws {
        try await withTemporaryDirectory { dir in
            let store = try await store(kind, dir)
            for n in 1...3 { try await store.putPart(itemId: Self.item, number: n, from: try write(Self.bytes(1000, seed: UInt64(n)), dir, "p\(n)")) }
            let parts = (1...3).map { UploadPart(number: $0, size: 1000) }
            do {
                _ = try await store.joinParts(itemId: Self.item, version: "v", fileName: "x.bin", parts: parts, limit: 2500, copyTo: nil)
                Issue.record("joined beyond the limit")
            } catch let error as PortalStoreError {
                #expect(error.kind == .tooLarge)
            }
            #expect(try await store.dataFile(itemId: Self.item, version: "v", fileName: "x.bin", size: nil) == nil)
        }
    }

    /// Info files, names from requests checked, and an item removed whole.
    @Test(S3Server.required, arguments: Kind.allCases)
    func infoFilesNamesAndRemoval(_ kind: Kind) async throws {
        try await withTemporaryDirectory { dir in
            let store = try await store(kind, dir)
            try await store.putInfo(itemId: Self.item, path: "thumbnail/thumbnail.png", bytes: [0x89, 0x50, 0x4E, 0x47])
            let info = try #require(try await store.infoFile(itemId: Self.item, path: "thumbnail/thumbnail.png"))
            #expect(info.name == "thumbnail.png")
            #expect(try await read(store, info) == [0x89, 0x50, 0x4E, 0x47])
            for bad in ["../x", "a/../../b", ".hidden", ""] {
                await #expect(throws: PortalStoreError.self) { try await store.putInfo(itemId: Self.item, path: bad, bytes: [1]) }
            }
            await #expect(throws: PortalStoreError.self) { try await store.putInfo(itemId: "../../etc", path: "a.png", bytes: [1]) }
            await #expect(throws: PortalStoreError.self) { try await store.putData(itemId: Self.item, version: "v", fileName: "../x", from: try write([1], dir, "f")) }
            await #expect(throws: PortalStoreError.self) { try await store.putPart(itemId: Self.item, number: 10_001, from: try write([1], dir, "g")) }
            try await store.putData(itemId: Self.item, version: "v", fileName: "d.bin", from: try write([1], dir, "h"))
            await store.remove(itemId: Self.item)
            #expect(try await store.infoFile(itemId: Self.item, path: "thumbnail/thumbnail.png") == nil)
            #expect(try await store.dataFile(itemId: Self.item, version: "v", fileName: "d.bin", size: nil) == nil)
        }
    }

    /// The sweep removes versions and items no record names and parts of removed items; a
    /// sweep that must leave recent files leaves them.
    @Test(S3Server.required, arguments: Kind.allCases)
    func sweepKeepsOnlyWhatRecordsName(_ kind: Kind) async throws {
        try await withTemporaryDirectory { dir in
            let store = try await store(kind, dir)
            let other = String(repeating: "cd", count: 16), gone = String(repeating: "ef", count: 16)
            let f = try write([1, 2, 3], dir, "f")
            try await store.putData(itemId: Self.item, version: "v1", fileName: "a.bin", from: f)
            try await store.putData(itemId: Self.item, version: "v2", fileName: "a.bin", from: f)
            try await store.putInfo(itemId: Self.item, path: "thumbnail/t.png", bytes: [1])
            try await store.putData(itemId: gone, version: "v1", fileName: "a.bin", from: f)
            try await store.putPart(itemId: gone, number: 1, from: f)
            try await store.putPart(itemId: other, number: 1, from: f)
            let keeping = [Self.item: "v2", other: "data"]
            #expect(try await store.sweep(keeping: keeping, olderThan: 3600) == 0, "recent files stay")
            #expect(try await store.sweep(keeping: keeping, olderThan: -5) >= 3)
            #expect(try await store.dataFile(itemId: Self.item, version: "v1", fileName: "a.bin", size: nil) == nil)
            #expect(try await store.dataFile(itemId: Self.item, version: "v2", fileName: "a.bin", size: nil) != nil)
            #expect(try await store.infoFile(itemId: Self.item, path: "thumbnail/t.png") != nil)
            #expect(try await store.dataFile(itemId: gone, version: "v1", fileName: "a.bin", size: nil) == nil)
            // The kept item's part stays: it is an upload in progress.
            let joined = try await store.joinParts(itemId: other, version: "v", fileName: "b.bin", parts: [UploadPart(number: 1, size: 3)], limit: 100, copyTo: nil)
            #expect(joined.size == 3)
            await #expect(throws: (any Error).self) {
                try await store.joinParts(itemId: gone, version: "v", fileName: "b.bin", parts: [UploadPart(number: 1, size: 3)], limit: 100, copyTo: nil)
            }
        }
    }

    /// The portal's sweep: alone with its store (SQLite), every upload not committed is
    /// abandoned; with a shared store, only those that have not moved for the set time, since
    /// another process may be receiving one now.
    /// Ranges the page cache holds are read in place; after the file's pages are dropped, the
    /// same ranges come from the disk through the thread pool, byte for byte the same.
    @Test func rangesReadAlikeFromThePageCacheAndFromTheDisk() async throws {
        try await withTemporaryDirectory { dir in
            let store = try DiskItemFileStore(root: dir + "/data")
            let bytes = Self.bytes(1_000_003, seed: 7)
            try await store.putData(itemId: Self.item, version: "v1", fileName: "Big.mmpk", from: try write(bytes, dir, "in"))
            let file = try #require(try await store.dataFile(itemId: Self.item, version: "v1", fileName: "Big.mmpk", size: nil))
            let ranges: [ClosedRange<Int64>] = [0...999_999, 262_143...262_144, 5...524_300, 999_000...1_000_002]
            for r in ranges { #expect(try await read(store, file, r) == Array(bytes[Int(r.lowerBound)...Int(r.upperBound)])) }
            // The two halves of one chunk's read: what the cache gives, then the rest waited for.
            let fd = open(file.location, O_RDONLY)
            defer { close(fd) }
            var chunk = ByteBuffer()
            #expect(DiskItemFileStore.fill(fd, into: &chunk, count: 100, at: 600_000, waiting: false))
            #expect(Array(chunk.readableBytesView) == Array(bytes[600_000..<600_100]))
            var rest = ByteBufferAllocator().buffer(bytes: bytes[700_000..<700_010])
            #expect(DiskItemFileStore.fill(fd, into: &rest, count: 50_000, at: 700_000, waiting: true))
            #expect(Array(rest.readableBytesView) == Array(bytes[700_000..<750_000]))
            // Drop the file's clean pages (the store fsyncs what it keeps; on ext4 they go, on
            // tmpfs they are the file and stay), then read every range again.
            #expect(posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED)) == 0)
            for r in ranges.reversed() { #expect(try await read(store, file, r) == Array(bytes[Int(r.lowerBound)...Int(r.upperBound)])) }
            #expect(try await read(store, file) == bytes)
        }
    }

    /// `bytes` stored as version v1 of the test item under `name` (renamed in, as the store
    /// keeps every version), and the stored file, read once in full to check it.
    func storeVersion(_ bytes: [UInt8], _ name: String, in store: DiskItemFileStore, _ dir: String) async throws -> StoredFile {
        try await store.putData(itemId: Self.item, version: "v1", fileName: name, from: try write(bytes, dir, "in"))
        let file = try #require(try await store.dataFile(itemId: Self.item, version: "v1", fileName: name, size: nil))
        #expect(try await read(store, file) == bytes)
        return file
    }

    /// Ranges the page cache holds are lent from the file's mapping, no copy made, and counted
    /// back when freed; a buffer that grows is copied out; a file replaced at the same path is
    /// mapped anew while buffers lent from the old one keep its bytes.
    @Test func rangesAreLentFromTheFilesMappingAndCountedBack() async throws {
        try await withTemporaryDirectory { dir in
            let store = try DiskItemFileStore(root: dir + "/data")
            let first = Self.bytes(600_001, seed: 9), second = Self.bytes(600_001, seed: 10)
            let file = try await storeVersion(first, "A.mmpk", in: store, dir)
            var kept: [ByteBuffer] = []
            try await store.read(file, range: 1000...400_000) { kept.append($0) }
            #expect(kept.map(\.readableBytes) == [262_144, 136_857])
            #expect(Array(kept.map { Array($0.readableBytesView) }.joined()) == Array(first[1000...400_000]))
            #expect(MappedItemFiles.lent(path: file.location) == (2, 0))
            // Grown past its end: copied out of the mapping, the file untouched.
            kept[1].writeBytes([1, 2, 3])
            #expect(MappedItemFiles.lent(path: file.location) == (1, 0))
            #expect(Array(kept[1].readableBytesView) == Array(first[263_144...400_000]) + [1, 2, 3])
            #expect(try await read(store, file, 263_144...263_200) == Array(first[263_144...263_200]))

            // A new file at the same path: read from a mapping of its own; the old mapping lives
            // on for the buffer still lent from it, with the old bytes, until that is freed.
            let replaced = try await storeVersion(second, "A.mmpk", in: store, dir)
            #expect(try await read(store, replaced, 5...300_000) == Array(second[5...300_000]))
            #expect(MappedItemFiles.lent(path: file.location) == (0, 1))
            #expect(Array(kept[0].readableBytesView) == Array(first[1000..<263_144]))
            kept.removeAll()
            #expect(MappedItemFiles.lent(path: file.location) == (0, 0))
        }
    }

    /// A new version renamed in while a download streams, its first chunk lent from the old
    /// file's mapping: the rest is not read from the new file (a body spliced from two files
    /// under one length and ETag); the read stops with an error of its own.
    @Test func aFileReplacedDuringADownloadIsNotSplicedIn() async throws {
        try await withTemporaryDirectory { dir in
            let store = try DiskItemFileStore(root: dir + "/data")
            let first = Self.bytes(700_001, seed: 11), second = Self.bytes(700_001, seed: 12)
            let file = try await storeVersion(first, "B.mmpk", in: store, dir)
            var got: [UInt8] = []
            var failure: PortalStoreError?
            do {
                try await store.read(file, range: nil) { chunk in
                    if got.isEmpty {
                        // Replaced, and read once more: the path's mapping is the new file's.
                        _ = try await storeVersion(second, "B.mmpk", in: store, dir)
                    }
                    got += chunk.readableBytesView
                }
            } catch let error as PortalStoreError {
                failure = error
            }
            #expect(failure?.kind == .io(errno: ESTALE))
            #expect(!got.isEmpty && got.count < first.count)
            // Compared as one Bool: a failing comparison of two large arrays makes the test
            // library diff them, which takes minutes.
            let firstFilesBytes = got == Array(first[0..<min(got.count, first.count)])
            #expect(firstFilesBytes, "what was sent before the error is the first file's")
        }
    }

    @Test func theSweepLeavesOtherProcessesUploadsAlone() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePortalStore(path: dir + "/portal.sqlite"), files = try DiskItemFileStore(root: dir + "/data")
            let now = TokenService.now()
            func upload(_ id: String, modified: Int64) async throws {
                let item = PortalItem(id: id, owner: "alice", created: modified, modified: modified, title: id, type: "Mobile Map Package")
                try await store.saveItem(ItemRecord(item: item, status: .uploading, groups: [], sha256: nil))
                try await files.putPart(itemId: id, number: 1, from: try write([1, 2, 3], dir, "p"))
            }
            let recent = String(repeating: "1", count: 32), old = String(repeating: "2", count: 32)
            try await upload(recent, modified: now)
            try await upload(old, modified: now - 2 * 3600 * 1000)
            try await Portal.sweep(store: store, files: files, shared: true, abandonedAfter: 3600)
            #expect(try await store.item(recent) != nil)
            #expect(try await store.item(old) == nil)
            #expect(FileManager.default.fileExists(atPath: dir + "/data/uploads/\(recent)/1"))
            try await Portal.sweep(store: store, files: files, shared: false, abandonedAfter: 3600)
            #expect(try await store.item(recent) == nil)
            #expect(!FileManager.default.fileExists(atPath: dir + "/data/uploads/\(recent)"))
        }
    }

    /// A multipart upload nobody completed (a process killed while joining) is aborted by
    /// the sweep.
    @Test(S3Server.required)
    func sweepAbortsAbandonedMultipartUploads() async throws {
        try await withTemporaryDirectory { dir in
            let store = try await store(.s3, dir) as! S3ItemFileStore
            let key = "items/\(Self.item)/v9/a.bin"
            let upload = try await store.client.createMultipartUpload(key)
            _ = try await store.client.uploadPart(key, uploadId: upload, number: 1, bytes: ByteBuffer(bytes: [1, 2, 3]))
            #expect(try await store.client.multipartUploads(prefix: "items/").map(\.uploadId) == [upload])
            try await store.sweep(keeping: [Self.item: "v1"], olderThan: -5)
            #expect(try await store.client.multipartUploads(prefix: "items/").isEmpty)
        }
    }

    /// A server that is down, and credentials it refuses, are errors of their own kind (the
    /// routes answer the first with a 503).
    @Test(S3Server.required)
    func unreachableAndRefusedAreKindsOfTheirOwn() async throws {
        try await withTemporaryDirectory { dir in
            let server = try S3Server.start()
            do {
                _ = try await S3ItemFileStore.open(url: "s3://somewhere", endpoint: "http://127.0.0.1:1", scratch: dir + "/a", environment: { getenv($0).map { String(cString: $0) } })
                Issue.record("opened a store on a closed port")
            } catch let error as PortalStoreError {
                #expect(error.kind == .objectStore(.unreachable))
            }
            let wrong: (String) -> String? = { $0 == "AWS_SECRET_ACCESS_KEY" ? "not-the-secret" : getenv($0).map { String(cString: $0) } }
            do {
                _ = try await S3ItemFileStore.open(url: "s3://somewhere", endpoint: server.endpoint, scratch: dir + "/b", environment: wrong)
                Issue.record("opened a store with a wrong secret")
            } catch let error as PortalStoreError {
                #expect(error.kind == .objectStore(.denied))
            }
            await #expect(throws: PortalStoreError.self) {
                _ = try await S3ItemFileStore.open(url: "s3://somewhere", endpoint: server.endpoint, scratch: dir + "/c", environment: { _ in nil })
            }
        }
    }
}
