/// The index of an Esri Compact Cache V2 bundle: 128 x 128 tiles in one file.
///
/// Layout (fixtures/vtpk-basemapde/CompactCacheV2.md): a 64-byte header, then 16,384 index
/// records of 8 bytes in row-major order, each holding the tile's offset in its low 40 bits and
/// its size in the high 24 (size 0: no tile); each tile's bytes are preceded by a 4-byte size.
/// The header's record count and legacy fields are ignored, as real files leave them unset.
public struct CompactCacheBundle: Sendable {
    public static let headerSize = 64
    public static let packetSize = 128
    public static let indexSize = 8 * 128 * 128
    /// Header plus index: where tile data can start.
    public static let fixedSize = headerSize + indexSize

    public let path: String
    /// The bundle file's size in bytes.
    public let length: Int64
    public let version: UInt32
    /// The raw index records, row-major.
    public let records: [UInt64]

    /// Parses the header and index from the first `fixedSize` bytes of a bundle of `length` bytes.
    public init(headerAndIndex bytes: [UInt8], length: Int64, path: String) throws(PackageFormatError) {
        guard bytes.count >= Self.fixedSize, length >= Int64(Self.fixedSize) else { throw Self.tooShort(length, path: path) }
        self.path = path
        self.length = length
        version = bytes.u32(0)
        // One copy of the index's little-endian words, not a bounds-checked read per byte:
        // `inspect` reads every bundle's index (issue 36).
        records = bytes.withUnsafeBytes { raw in
            (0..<Self.packetSize * Self.packetSize).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: Self.headerSize + 8 * $0, as: UInt64.self)) }
        }
    }

    /// Reads a bundle's header and index from a byte range (a file or a stored entry).
    public init(range: ByteRange, path: String) throws(PackageFormatError) {
        guard range.length >= Int64(Self.fixedSize) else { throw Self.tooShort(range.length, path: path) }
        let bytes: [UInt8]
        do {
            bytes = try range.read(at: 0, count: Self.fixedSize)
        } catch {
            throw PackageFormatError(kind: .archive(error.kind), path: path, message: error.message)
        }
        try self.init(headerAndIndex: bytes, length: range.length, path: path)
    }

    /// The offset and size of the tile at `row`, `column` within the bundle (0-127), if present.
    public func tile(row: Int, column: Int) -> (offset: Int64, size: Int)? {
        guard (0..<Self.packetSize).contains(row), (0..<Self.packetSize).contains(column) else { return nil }
        let record = records[row * Self.packetSize + column]
        let size = Int(record >> 40)
        guard size > 0 else { return nil }
        return (Int64(record & 0xFF_FFFF_FFFF), size)
    }

    public var tileCount: Int { Counts(records).tiles }

    /// Tiles, their bytes and the largest, from an index's records.
    public struct Counts: Sendable, Hashable {
        public var tiles = 0
        public var bytes: Int64 = 0
        public var largest = 0

        public init(_ records: some Sequence<UInt64>) {
            for record in records where record >> 40 != 0 {
                tiles += 1
                bytes += Int64(record >> 40)
                largest = max(largest, Int(record >> 40))
            }
        }
    }

    /// The counts of the bundle in `range`, its header and index read into memory of the call's
    /// own and counted there: `inspect` counts every bundle of a package, and building the
    /// records (two 128 KiB arrays per bundle) was a fifth of its time (issue 36). Read, not
    /// mapped: a file cut short under a mapping faults where a read reports it.
    public static func counts(range: ByteRange, path: String) throws(PackageFormatError) -> Counts {
        guard range.length >= Int64(Self.fixedSize) else { throw Self.tooShort(range.length, path: path) }
        return try withUnsafeTemporaryAllocation(byteCount: Self.fixedSize, alignment: 8) { buffer throws(PackageFormatError) in
            do throws(ArchiveError) {
                try range.file.read(into: buffer, at: range.offset)
            } catch {
                throw PackageFormatError(kind: .archive(error.kind), path: path, message: error.message)
            }
            let index = UnsafeRawBufferPointer(rebasing: buffer[Self.headerSize...])
            return Counts((0..<Self.packetSize * Self.packetSize).lazy.map { UInt64(littleEndian: index.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self)) })
        }
    }

    /// A bundle of `length` bytes, too short to hold its header and index.
    private static func tooShort(_ length: Int64, path: String) -> PackageFormatError {
        PackageFormatError(kind: .damaged, path: path, message: "a bundle needs at least \(fixedSize) bytes (header and index), this one has \(length)")
    }

    /// Records that point outside the bundle or into its header and index.
    public func indexProblems() -> [String] {
        var problems: [String] = []
        for row in 0..<Self.packetSize {
            for column in 0..<Self.packetSize {
                guard let (offset, size) = tile(row: row, column: column) else { continue }
                if offset < Int64(Self.fixedSize + 4) {
                    problems.append("tile at row \(row), column \(column) starts at \(offset), inside the header and index")
                } else if offset + Int64(size) > length {
                    problems.append("tile at row \(row), column \(column) (\(size) bytes at \(offset)) runs past the end of the bundle (\(length) bytes)")
                }
                if problems.count >= 20 { return problems + ["(further problems not listed)"] }
            }
        }
        return problems
    }

    /// Parses a bundle file name, `R0080C0100.bundle` or `L01_R0000C0000.bundle`, to the row and
    /// column of its top-left tile (hexadecimal in the name) and the level when the name has it.
    public static func parseName(_ name: String) -> (level: Int?, row: Int, column: Int)? {
        var base = Substring(name.split(separator: "/").last ?? "")
        guard base.hasSuffix(".bundle") else { return nil }
        base = base.dropLast(7)
        var level: Int?
        if base.hasPrefix("L"), let underscore = base.firstIndex(of: "_") {
            level = Int(base[base.index(after: base.startIndex)..<underscore])
            base = base[base.index(after: underscore)...]
        }
        guard base.hasPrefix("R"), let c = base.firstIndex(of: "C") else { return nil }
        guard let row = Int(base[base.index(after: base.startIndex)..<c], radix: 16),
            let column = Int(base[base.index(after: c)...], radix: 16)
        else { return nil }
        return (level, row, column)
    }
}
