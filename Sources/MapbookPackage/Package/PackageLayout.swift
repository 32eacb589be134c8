import Crypto
import MapbookSupport

/// Where each entry of a package file lies and what it holds, down to 4 KiB blocks: what a
/// device needs to build a new version of a package from the one it holds, fetching only the
/// bytes that differ (issue 35, docs/PORTAL.md "Updates by delta").
///
/// The portal writes one for every version it stores (`mapbook/layout.json`, an info file of
/// the item); a device compares it with the package it holds.
public struct PackageLayout: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        /// Where the entry's local header starts, and where its data starts.
        public var headerOffset: Int64
        public var dataOffset: Int64
        public var size: Int64
        /// SHA-256 of the data, lowercase hex.
        public var sha256: String
        /// The first 8 bytes of the SHA-256 of each `blockSize` block of the data (the last
        /// may be short), for entries of `blockedSize` bytes or more; empty for smaller ones.
        public var blocks: [UInt64]
    }

    /// The file's size and SHA-256 (the portal's ETag).
    public var size: Int64
    public var sha256: String
    /// In file order.
    public var entries: [Entry]

    /// SQLite's default page size: a database's changed pages are changed blocks.
    public static let blockSize = 4096
    /// Entries smaller than this are fetched whole when they changed.
    public static let blockedSize: Int64 = 64 << 10

    public init(size: Int64, sha256: String, entries: [Entry]) {
        self.size = size
        self.sha256 = sha256
        self.entries = entries
    }

    /// Reads the package at `path`: every stored entry's place, hash and block hashes. The
    /// whole file's hash is `fileSHA256` when the caller has it already (the portal hashed the
    /// upload, the library keeps its downloads' hashes), else read too.
    public static func read(path: String, fileSHA256: String? = nil) throws -> PackageLayout {
        let archive = try ZipArchive(path: path)
        var sha256 = fileSHA256
        if sha256 == nil {
            var file = SHA256Digest()
            try archive.range.forEachChunk(chunkSize: 4 << 20) { file.update($0) }
            sha256 = file.finalizeHex()
        }
        var entries: [Entry] = []
        for entry in archive.entries.sorted(by: { $0.localHeaderOffset < $1.localHeaderOffset }) where entry.method == .stored {
            let data = try archive.dataRange(of: entry)
            var whole = SHA256Digest()
            var blocks: [UInt64] = []
            let blocked = data.length >= blockedSize
            try data.forEachChunk(chunkSize: 1 << 20) { chunk in
                whole.update(chunk)
                guard blocked else { return }
                var at = 0
                while at < chunk.count {
                    let end = min(at + blockSize, chunk.count)
                    blocks.append(Self.blockHash(UnsafeRawBufferPointer(rebasing: chunk[at..<end])))
                    at = end
                }
            }
            entries.append(Entry(name: entry.name, headerOffset: entry.localHeaderOffset, dataOffset: data.offset, size: data.length, sha256: whole.finalizeHex(), blocks: blocks))
        }
        return PackageLayout(size: archive.range.length, sha256: sha256 ?? "", entries: entries)
    }

    /// A block's hash: the first 8 bytes of its SHA-256.
    public static func blockHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        var value: UInt64 = 0
        for (i, byte) in hasher.finalize().prefix(8).enumerated() { value |= UInt64(byte) << (8 * UInt64(i)) }
        return value
    }

    public var jsonValue: JSONValue {
        .object([
            "size": .integer(size), "sha256": .string(sha256), "blockSize": .int(Self.blockSize),
            "entries": .array(entries.map { e in
                var blocks: [UInt8] = []
                blocks.reserveCapacity(e.blocks.count * 8)
                for b in e.blocks { blocks.appendLittleEndian(b) }
                return .object([
                    "name": .string(e.name), "headerOffset": .integer(e.headerOffset), "dataOffset": .integer(e.dataOffset),
                    "size": .integer(e.size), "sha256": .string(e.sha256), "blocks": .string(Base64.encode(blocks)),
                ])
            }),
        ])
    }

    /// Reads a layout's JSON; nil when it is not one this tool can use.
    public init?(json value: JSONValue) {
        guard let o = value.objectValue, let size = o["size"]?.int64Value, let sha = o["sha256"]?.stringValue,
            o["blockSize"]?.int64Value == Int64(Self.blockSize), let list = o["entries"]?.arrayValue
        else { return nil }
        var entries: [Entry] = []
        for item in list {
            guard let e = item.objectValue, let name = e["name"]?.stringValue, let header = e["headerOffset"]?.int64Value,
                let data = e["dataOffset"]?.int64Value, let length = e["size"]?.int64Value, let hash = e["sha256"]?.stringValue,
                let raw = e["blocks"]?.stringValue.flatMap(Base64.decode), raw.count % 8 == 0,
                header >= 0, data >= header, length >= 0, data + length <= size
            else { return nil }
            let blocks = stride(from: 0, to: raw.count, by: 8).map { raw.u64($0) }
            entries.append(Entry(name: name, headerOffset: header, dataOffset: data, size: length, sha256: hash, blocks: blocks))
        }
        // In file order, not overlapping: a plan built from it covers the file once.
        for (a, b) in zip(entries, entries.dropFirst()) where a.dataOffset + a.size > b.headerOffset { return nil }
        self.init(size: size, sha256: sha, entries: entries)
    }
}
