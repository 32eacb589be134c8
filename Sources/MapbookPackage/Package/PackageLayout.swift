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
        /// may be short), for entries of `blockedSize` bytes or more; empty for smaller ones,
        /// and in a layout read from JSON until its blocks file is read.
        public var blocks: [UInt64]
        /// How many blocks the entry is hashed in (`blockCount(size:)`).
        public var blockCount: Int

        public init(name: String, headerOffset: Int64, dataOffset: Int64, size: Int64, sha256: String, blocks: [UInt64], blockCount: Int? = nil) {
            self.name = name
            self.headerOffset = headerOffset
            self.dataOffset = dataOffset
            self.size = size
            self.sha256 = sha256
            self.blocks = blocks
            self.blockCount = blockCount ?? blocks.count
        }
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

    /// The layout as the portal serves it: entries with their block counts, not their block
    /// hashes, which are files of their own (`blocksPath`, `blocksBytes`) a device fetches only
    /// for an entry no patch gives, so the layout costs a device little more than its entries.
    public var jsonValue: JSONValue {
        .object([
            "size": .integer(size), "sha256": .string(sha256), "blockSize": .int(Self.blockSize),
            "entries": .array(entries.map { e in
                .object([
                    "name": .string(e.name), "headerOffset": .integer(e.headerOffset), "dataOffset": .integer(e.dataOffset),
                    "size": .integer(e.size), "sha256": .string(e.sha256), "blocks": .int(e.blockCount),
                ])
            }),
        ])
    }

    /// Reads a layout's JSON (entries without their block hashes); nil when it is not one this
    /// tool can use.
    public init?(json value: JSONValue) {
        guard let o = value.objectValue, let size = o["size"]?.int64Value, let sha = o["sha256"]?.stringValue,
            o["blockSize"]?.int64Value == Int64(Self.blockSize), let list = o["entries"]?.arrayValue
        else { return nil }
        var entries: [Entry] = []
        for item in list {
            guard let e = item.objectValue, let name = e["name"]?.stringValue, let header = e["headerOffset"]?.int64Value,
                let data = e["dataOffset"]?.int64Value, let length = e["size"]?.int64Value, let hash = e["sha256"]?.stringValue,
                let count = e["blocks"]?.int64Value, header >= 0, data >= header, length >= 0, data + length <= size,
                count == Self.blockCount(size: length)
            else { return nil }
            entries.append(Entry(name: name, headerOffset: header, dataOffset: data, size: length, sha256: hash, blocks: [], blockCount: Int(count)))
        }
        // In file order, not overlapping: a plan built from it covers the file once.
        for (a, b) in zip(entries, entries.dropFirst()) where a.dataOffset + a.size > b.headerOffset { return nil }
        self.init(size: size, sha256: sha, entries: entries)
    }

    /// How many blocks an entry of `size` bytes is hashed in: none below `blockedSize`.
    public static func blockCount(size: Int64) -> Int64 {
        size >= blockedSize ? (size + Int64(blockSize) - 1) / Int64(blockSize) : 0
    }

    /// The info file holding the block hashes of the entry whose data has SHA-256 `sha256`.
    public static func blocksPath(_ sha256: String) -> String { "mapbook/blocks/\(sha256).bin" }

    /// An entry's block hashes as its blocks file holds them: 8 bytes each, little-endian.
    public static func blocksBytes(_ entry: Entry) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entry.blocks.count * 8)
        for b in entry.blocks { bytes.appendLittleEndian(b) }
        return bytes
    }

    /// The block hashes a blocks file holds; nil when it does not hold `entry`'s count.
    public static func blocks(_ bytes: [UInt8], of entry: Entry) -> [UInt64]? {
        guard bytes.count == entry.blockCount * 8 else { return nil }
        return stride(from: 0, to: bytes.count, by: 8).map { bytes.u64($0) }
    }
}
