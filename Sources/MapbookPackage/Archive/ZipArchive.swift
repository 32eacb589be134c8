import MapbookSupport
/// A ZIP archive read through its central directory, with random access to entries.
///
/// Opening reads the end-of-central-directory records and the central directory, nothing else
/// (APPNOTE 6.3.10, sections 4.3.12 to 4.3.16); the archive may itself be a stored entry of
/// another archive. Stored entries are byte ranges of the file (`dataRange(of:)`), so their
/// contents are read in place without extraction. Problems that do not stop reading (a wrong
/// entry count, bytes before the first entry) are kept in `issues` for `validate`.
public final class ZipArchive: Sendable {
    /// Where the archive's bytes are.
    public let range: ByteRange
    /// The archive's name in messages: its path, or `outer[entry]` for a nested archive.
    public let displayPath: String
    public let entries: [ZipEntry]
    /// Bytes before the first entry that the recorded offsets do not count (a self-extractor stub).
    public let prefixLength: Int64
    public let centralDirectoryOffset: Int64
    public let centralDirectorySize: Int64
    public let usesZip64: Bool
    /// Structural problems that did not prevent reading.
    public let issues: [String]
    /// Names that occur more than once, in order of first repetition.
    public let duplicateNames: [String]
    private let positions: [String: Int]
    /// For an unpacked folder read as an archive: each entry's file path, by entry index.
    private let folderFiles: [String]?

    /// Whether this is an unpacked folder rather than a ZIP file.
    public var isFolder: Bool { folderFiles != nil }

    /// The most entries we accept; each costs a few hundred bytes of memory.
    public static let maximumEntryCount = 10_000_000
    /// Deflate's largest possible expansion (RFC 1951: 258 bytes from a 2-bit code, about 1032:1).
    public static let maximumExpansion: Int64 = 1032

    /// Opens the ZIP file at `path`.
    public convenience init(path: String) throws(ArchiveError) {
        let file = try RandomAccessFile(path: path)
        try self.init(range: ByteRange(file: file), displayPath: path)
    }

    /// Reads an unpacked package (a `.vtpk` or `.mmpk` extracted by ArcGIS Pro or `unzip`) as
    /// an archive: every regular file under `folder` is a stored entry named by its path
    /// relative to the folder, read in place. Links are skipped, never followed; files have no
    /// recorded CRC, so `read` checks only their size.
    public init(folder: String) throws(ArchiveError) {
        var root = folder
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        guard FileSystem.kind(root) == .directory else {
            throw ArchiveError(kind: .notARegularFile, operation: "read the folder", path: folder, message: "not a folder")
        }
        var entries: [ZipEntry] = [], paths: [String] = [], positions: [String: Int] = [:]
        var pending = [""]
        while let relative = pending.popLast() {
            let here = relative.isEmpty ? root : root + "/" + relative
            for name in FileSystem.names(in: here) {
                let inside = relative.isEmpty ? name : relative + "/" + name
                let path = root + "/" + inside
                switch FileSystem.kind(path) {
                case .directory?: pending.append(inside)
                case .file?:
                    guard entries.count < Self.maximumEntryCount else {
                        throw ArchiveError(kind: .tooLarge, operation: "read the folder", path: folder, message: "it holds more than \(Self.maximumEntryCount) files")
                    }
                    let size = FileSystem.size(path) ?? 0
                    positions[inside] = entries.count
                    entries.append(ZipEntry(
                        name: inside, rawName: Array(inside.utf8), nameIsUTF8: true, method: .stored, flags: 0, crc32: 0,
                        compressedSize: size, uncompressedSize: size, localHeaderOffset: 0, versionMadeBy: 0,
                        externalAttributes: 0, dosDate: 0, dosTime: 0, index: entries.count))
                    paths.append(path)
                default: continue
                }
            }
        }
        guard let first = paths.first else {
            throw ArchiveError(kind: .notAZip, operation: "read the folder", path: folder, message: "it holds no files")
        }
        range = ByteRange(file: try RandomAccessFile(path: first), offset: 0, length: 0)
        displayPath = folder
        self.entries = entries
        self.positions = positions
        folderFiles = paths
        duplicateNames = []
        prefixLength = 0
        centralDirectoryOffset = 0
        centralDirectorySize = 0
        usesZip64 = false
        issues = []
    }

    /// Opens the ZIP archive held by `range`.
    public init(range: ByteRange, displayPath: String) throws(ArchiveError) {
        self.range = range
        self.displayPath = displayPath
        folderFiles = nil
        func fail(_ kind: ArchiveError.Kind, _ message: String) -> ArchiveError {
            ArchiveError(kind: kind, operation: "read the ZIP archive", path: displayPath, message: message)
        }
        var issues: [String] = []

        // The end-of-central-directory record is the last 22 bytes unless a comment follows it.
        guard range.length >= 22 else {
            throw fail(.notAZip, range.length == 0 ? "the file is empty" : "the file is too short to be a ZIP archive (\(range.length) bytes)")
        }
        let tailLength = Int(min(range.length, 22 + 65_535 + 20))
        let tailStart = range.length - Int64(tailLength)
        let tail = try range.read(at: tailStart, count: tailLength)
        var eocdAt: Int? = nil
        var i = tail.count - 22
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4B, tail[i + 2] == 0x05, tail[i + 3] == 0x06 {
                let commentLength = Int(tail.u16(i + 20))
                // A real record's comment runs exactly to the end of the file.
                if i + 22 + commentLength == tail.count {
                    eocdAt = i
                    break
                }
                if eocdAt == nil, i + 22 + commentLength <= tail.count { eocdAt = i }
            }
            i -= 1
        }
        guard let eocd = eocdAt else {
            if (try? range.read(at: 0, count: 4)) == [0x50, 0x4B, 0x03, 0x04] {
                throw fail(.truncated, "no end-of-central-directory record: the archive is truncated or damaged")
            }
            throw fail(.notAZip, "not a ZIP archive (no end-of-central-directory record)")
        }
        let eocdOffset = tailStart + Int64(eocd)
        if eocd + 22 + Int(tail.u16(eocd + 20)) != tail.count {
            issues.append("\(Int64(tail.count - eocd - 22 - Int(tail.u16(eocd + 20)))) bytes follow the end-of-central-directory record")
        }
        let diskNumber = tail.u16(eocd + 4)
        let cdDisk = tail.u16(eocd + 6)
        var entryCount = Int64(tail.u16(eocd + 10))
        var cdSize = Int64(tail.u32(eocd + 12))
        var cdOffset = Int64(tail.u32(eocd + 16))
        var zip64 = false
        if diskNumber != 0 || cdDisk != 0 {
            if !(diskNumber == 0xFFFF || cdDisk == 0xFFFF) {
                throw fail(.unsupportedVersion, "multi-disk (spanned) archives are not supported")
            }
        }

        // ZIP64: a locator 20 bytes before the record points at the ZIP64 end record.
        let locatorAt = eocd - 20
        if locatorAt >= 0, tail.u32(locatorAt) == 0x0706_4B50 {
            let zip64EndOffset = Int64(bitPattern: tail.u64(locatorAt + 8))
            guard zip64EndOffset >= 0, zip64EndOffset <= eocdOffset - 56 else {
                throw fail(.damaged, "the ZIP64 end-of-central-directory locator points outside the file")
            }
            let record = try range.read(at: zip64EndOffset, count: 56)
            guard record.u32(0) == 0x0606_4B50 else {
                throw fail(.damaged, "the ZIP64 end-of-central-directory record is missing or damaged")
            }
            zip64 = true
            entryCount = Int64(bitPattern: record.u64(32))
            cdSize = Int64(bitPattern: record.u64(40))
            cdOffset = Int64(bitPattern: record.u64(48))
        } else if entryCount == 0xFFFF || cdSize == 0xFFFF_FFFF || cdOffset == 0xFFFF_FFFF {
            if entryCount == 0xFFFF && cdSize != 0xFFFF_FFFF && cdOffset != 0xFFFF_FFFF {
                // Exactly 65,535 entries without ZIP64 is legal.
            } else {
                throw fail(.truncated, "the archive needs a ZIP64 end-of-central-directory record but has none (truncated?)")
            }
        }
        guard entryCount >= 0, entryCount <= Int64(Self.maximumEntryCount) else {
            throw fail(.tooLarge, "the central directory claims \(entryCount) entries, more than the \(Self.maximumEntryCount) accepted")
        }
        // Every later sum of offsets and sizes stays far from overflow once both are in the file.
        guard cdSize >= 0, cdOffset >= 0, cdSize <= range.length, cdOffset <= range.length else {
            throw fail(.truncated, "the central directory (\(cdSize) bytes at offset \(cdOffset)) lies outside the \(range.length)-byte file: truncated or damaged")
        }

        // The directory should end where the end records begin; if it ends earlier, bytes were
        // prepended to the archive and every recorded offset is short by the same amount.
        let cdEnd = zip64 ? Int64(bitPattern: tail.u64(locatorAt + 8)) : eocdOffset
        var prefix: Int64 = 0
        if cdOffset + cdSize != cdEnd {
            let shift = cdEnd - cdSize - cdOffset
            guard shift > 0, cdEnd - cdSize >= 0 else {
                throw fail(.damaged, "the central directory (\(cdSize) bytes at offset \(cdOffset)) does not fit before the end records at \(cdEnd): the archive is truncated or damaged")
            }
            prefix = shift
            issues.append("\(shift) bytes precede the first entry (offsets are shifted)")
        }
        guard cdSize <= Int64(Int32.max) else { throw fail(.tooLarge, "the central directory is larger than 2 GiB") }
        guard entryCount * 46 <= cdSize else {
            throw fail(.damaged, "the central directory (\(cdSize) bytes) is too small for the \(entryCount) entries it claims")
        }

        let directory = try range.read(at: cdOffset + prefix, count: Int(cdSize))
        var entries: [ZipEntry] = []
        entries.reserveCapacity(Int(entryCount))
        var positions: [String: Int] = [:]
        positions.reserveCapacity(Int(entryCount))
        var duplicates: [String] = []
        var seenDuplicate = Set<String>()
        var p = 0
        while p + 46 <= directory.count, entries.count < Self.maximumEntryCount {
            guard directory.u32(p) == 0x0201_4B50 else {
                if entries.count < entryCount {
                    throw fail(.damaged, "central directory record \(entries.count + 1) has a bad signature at offset \(cdOffset + prefix + Int64(p))")
                }
                break
            }
            let nameLength = Int(directory.u16(p + 28))
            let extraLength = Int(directory.u16(p + 30))
            let commentLength = Int(directory.u16(p + 32))
            let recordLength = 46 + nameLength + extraLength + commentLength
            guard p + recordLength <= directory.count else {
                throw fail(.damaged, "central directory record \(entries.count + 1) runs past the end of the directory")
            }
            let flags = directory.u16(p + 8)
            let rawName = Array(directory[(p + 46)..<(p + 46 + nameLength)])
            let (name, isUTF8) = Self.decodeName(rawName, flaggedUTF8: flags & 0x0800 != 0)
            var compressed = Int64(directory.u32(p + 20))
            var uncompressed = Int64(directory.u32(p + 24))
            var localOffset = Int64(directory.u32(p + 42))
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF {
                // ZIP64 extended information (APPNOTE 4.5.3): only the saturated fields, in order.
                var e = p + 46 + nameLength
                let extraEnd = e + extraLength
                var found = false
                while e + 4 <= extraEnd {
                    let tag = directory.u16(e)
                    let size = Int(directory.u16(e + 2))
                    guard e + 4 + size <= extraEnd else { break }
                    if tag == 0x0001 {
                        var f = e + 4
                        let fEnd = e + 4 + size
                        if uncompressed == 0xFFFF_FFFF, f + 8 <= fEnd { uncompressed = Int64(bitPattern: directory.u64(f)); f += 8 }
                        if compressed == 0xFFFF_FFFF, f + 8 <= fEnd { compressed = Int64(bitPattern: directory.u64(f)); f += 8 }
                        if localOffset == 0xFFFF_FFFF, f + 8 <= fEnd { localOffset = Int64(bitPattern: directory.u64(f)); f += 8 }
                        found = true
                        break
                    }
                    e += 4 + size
                }
                if !found {
                    issues.append("entry '\(name)' has saturated 32-bit sizes but no ZIP64 extra field")
                }
            }
            guard compressed >= 0, uncompressed >= 0, localOffset >= 0 else {
                throw fail(.damaged, "entry '\(name)' has a negative size or offset")
            }
            guard compressed <= range.length, localOffset <= range.length else {
                throw fail(.truncated, "entry '\(name)' claims \(compressed) bytes at offset \(localOffset), beyond the \(range.length)-byte file: truncated or damaged")
            }
            // Deflate expands at most 1032 times; a larger claim is forged, and bounding it
            // keeps every sum of sizes far from overflow.
            guard uncompressed <= compressed * Self.maximumExpansion + 1024 else {
                throw fail(.zipBomb, "entry '\(name)' claims to expand \(compressed) bytes to \(uncompressed), more than any supported compression can: a forged size")
            }
            let entry = ZipEntry(
                name: name, rawName: rawName, nameIsUTF8: isUTF8,
                method: ZipEntry.Method(directory.u16(p + 10)), flags: flags,
                crc32: directory.u32(p + 16), compressedSize: compressed, uncompressedSize: uncompressed,
                localHeaderOffset: localOffset + prefix, versionMadeBy: directory.u16(p + 4),
                externalAttributes: directory.u32(p + 38), dosDate: directory.u16(p + 14),
                dosTime: directory.u16(p + 12), index: entries.count)
            if positions[name] == nil {
                positions[name] = entries.count
            } else if seenDuplicate.insert(name).inserted {
                duplicates.append(name)
            }
            entries.append(entry)
            p += recordLength
        }
        if Int64(entries.count) != entryCount {
            issues.append("the end record says \(entryCount) entries, the central directory holds \(entries.count)")
        }

        self.entries = entries
        self.positions = positions
        self.duplicateNames = duplicates
        self.prefixLength = prefix
        self.centralDirectoryOffset = cdOffset + prefix
        self.centralDirectorySize = cdSize
        self.usesZip64 = zip64
        self.issues = issues
    }

    /// Decodes an entry name: UTF-8 when flagged or valid, otherwise Latin-1.
    static func decodeName(_ bytes: [UInt8], flaggedUTF8: Bool) -> (String, Bool) {
        if let s = String(validating: bytes, as: UTF8.self) { return (s, true) }
        return (String(bytes.map { Character(UnicodeScalar($0)) }), false)
    }

    /// The first entry with this exact name.
    public func entry(named name: String) -> ZipEntry? {
        positions[name].map { entries[$0] }
    }

    /// The local file header of `entry` (APPNOTE 4.3.7).
    public struct LocalHeader: Sendable {
        public var rawName: [UInt8]
        public var method: UInt16
        public var flags: UInt16
        public var crc32: UInt32
        /// Where the entry's data begins, relative to the archive.
        public var dataOffset: Int64
    }

    /// Reads and checks the local header of `entry`.
    public func localHeader(of entry: ZipEntry) throws(ArchiveError) -> LocalHeader {
        let path = "\(displayPath)[\(entry.name)]"
        guard entry.localHeaderOffset + 30 <= range.length else {
            throw ArchiveError(kind: .truncated, operation: "read entry", path: path, message: "its local header lies past the end of the archive (truncated?)")
        }
        let header = try range.read(at: entry.localHeaderOffset, count: 30)
        guard header.u32(0) == 0x0403_4B50 else {
            throw ArchiveError(kind: .damaged, operation: "read entry", path: path, message: "no local file header at offset \(entry.localHeaderOffset)")
        }
        let nameLength = Int(header.u16(26))
        let extraLength = Int(header.u16(28))
        let dataOffset = entry.localHeaderOffset + 30 + Int64(nameLength + extraLength)
        guard dataOffset <= range.length else {
            throw ArchiveError(kind: .truncated, operation: "read entry", path: path, message: "its local header runs past the end of the archive (truncated?)")
        }
        let rawName = try range.read(at: entry.localHeaderOffset + 30, count: nameLength)
        return LocalHeader(
            rawName: rawName, method: header.u16(8), flags: header.u16(6), crc32: header.u32(14),
            dataOffset: dataOffset)
    }

    /// A folder's entry as its own file, opened now (so a folder of thousands of files holds
    /// no descriptors open); nil for a ZIP archive. A file that changed size since the folder
    /// was listed is refused.
    private func folderFile(_ entry: ZipEntry) throws(ArchiveError) -> ByteRange? {
        guard let folderFiles else { return nil }
        guard entry.index >= 0, entry.index < folderFiles.count else {
            throw ArchiveError(kind: .damaged, operation: "read entry", path: "\(displayPath)[\(entry.name)]", message: "no such file in the folder")
        }
        let file = try RandomAccessFile(path: folderFiles[entry.index])
        guard file.size == entry.uncompressedSize else {
            throw ArchiveError(kind: .sizeMismatch, operation: "read entry", path: file.path, message: "it is \(file.size) bytes, \(entry.uncompressedSize) when the folder was read: it changed meanwhile")
        }
        return ByteRange(file: file)
    }

    /// The bytes of a stored entry as a range of the archive file: no copy, no extraction.
    public func dataRange(of entry: ZipEntry) throws(ArchiveError) -> ByteRange {
        let path = "\(displayPath)[\(entry.name)]"
        guard entry.method == .stored else {
            throw ArchiveError(kind: .notStored, operation: "read entry", path: path, message: "it is \(entry.method), not stored, so it cannot be read in place")
        }
        guard !entry.isEncrypted else {
            throw ArchiveError(kind: .encrypted, operation: "read entry", path: path, message: "it is encrypted")
        }
        if let file = try folderFile(entry) { return file }
        let header = try localHeader(of: entry)
        guard header.rawName == entry.rawName else {
            throw ArchiveError(kind: .damaged, operation: "read entry", path: path, message: "its local header names a different file than the central directory")
        }
        guard entry.compressedSize == entry.uncompressedSize,
            header.dataOffset + entry.compressedSize <= range.length
        else {
            throw ArchiveError(kind: .truncated, operation: "read entry", path: path, message: "its data (\(entry.compressedSize) bytes at \(header.dataOffset)) lies past the end of the archive (truncated?)")
        }
        return range.slice(offset: header.dataOffset, length: entry.compressedSize)
    }

    /// Reads a whole entry into memory, stored or deflated, refusing more than `limit` bytes,
    /// and checks its size and CRC-32 against the central directory.
    public func read(_ entry: ZipEntry, limit: Int64 = 256 << 20) throws(ArchiveError) -> [UInt8] {
        let path = "\(displayPath)[\(entry.name)]"
        guard entry.uncompressedSize <= limit else {
            throw ArchiveError(kind: .tooLarge, operation: "read entry", path: path, message: "it is \(entry.uncompressedSize) bytes, more than the \(limit) bytes allowed here")
        }
        var out: [UInt8] = []
        var crc = CRC32()
        do {
            // The size is bounded by the file's (see init), so reserving it is safe.
            out.reserveCapacity(Int(entry.uncompressedSize))
            try stream(entry, limit: limit) {
                crc.update($0)
                out.append(contentsOf: $0)
            }
        } catch {
            // The body cannot throw, so this is the archive's own error.
            throw ArchiveError(error, operation: "read entry", path: path)
        }
        guard Int64(out.count) == entry.uncompressedSize else {
            throw ArchiveError(kind: .sizeMismatch, operation: "read entry", path: path, message: "it holds \(out.count) bytes, the central directory says \(entry.uncompressedSize): truncated or damaged")
        }
        guard isFolder || crc.value == entry.crc32 else {
            throw ArchiveError(kind: .crcMismatch, operation: "read entry", path: path, message: "it fails its CRC-32 check: the data is damaged")
        }
        return out
    }

    /// Streams an entry's uncompressed bytes in chunks, stored or deflated.
    ///
    /// Stops with an error once more than `limit` bytes, or more than the entry's declared size,
    /// come out: a deflate stream that expands past what it claims is refused, not trusted.
    public func stream(_ entry: ZipEntry, limit: Int64, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let path = "\(displayPath)[\(entry.name)]"
        guard !entry.isEncrypted else {
            throw ArchiveError(kind: .encrypted, operation: "read entry", path: path, message: "it is encrypted")
        }
        let data: ByteRange
        if let file = try folderFile(entry) {
            data = file
        } else {
            let header = try localHeader(of: entry)
            guard header.rawName == entry.rawName else {
                throw ArchiveError(kind: .damaged, operation: "read entry", path: path, message: "its local header names a different file than the central directory")
            }
            guard header.dataOffset + entry.compressedSize <= range.length else {
                throw ArchiveError(kind: .truncated, operation: "read entry", path: path, message: "its data lies past the end of the archive (truncated?)")
            }
            data = range.slice(offset: header.dataOffset, length: entry.compressedSize)
        }
        switch entry.method {
        case .stored:
            guard entry.compressedSize == entry.uncompressedSize else {
                throw ArchiveError(kind: .sizeMismatch, operation: "read entry", path: path, message: "stored entry with different compressed (\(entry.compressedSize)) and uncompressed (\(entry.uncompressedSize)) sizes")
            }
            guard entry.uncompressedSize <= limit else {
                throw ArchiveError(kind: .tooLarge, operation: "read entry", path: path, message: "it expands to \(entry.uncompressedSize) bytes, more than the \(limit) allowed")
            }
            try data.forEachChunk(body)
        case .deflated:
            try Inflater.inflate(data, path: path, limit: min(limit, entry.uncompressedSize), body)
        case .other(let m):
            throw ArchiveError(kind: .unsupportedCompression, operation: "read entry", path: path, message: "unsupported compression method \(m)")
        }
    }

    /// What is wrong with an entry's place in the archive.
    public enum LayoutProblem: Sendable, Hashable {
        /// The local header cannot be read or disagrees with the central directory.
        case localHeader
        /// The entry's data runs into the central directory.
        case bounds
        /// The entry's data overlaps another entry's.
        case overlap
    }

    /// Entries whose local header is missing or disagrees with the central directory, or whose
    /// data runs into the directory or into another entry's (overlapping entries are how
    /// ZIP bombs get past per-entry ratio limits). Reads every local header once.
    public func layoutProblems() -> [(entry: ZipEntry, kind: LayoutProblem, message: String)] {
        var problems: [(ZipEntry, LayoutProblem, String)] = []
        var spans: [(start: Int64, end: Int64, entry: ZipEntry)] = []
        spans.reserveCapacity(entries.count)
        for entry in entries {
            let header: LocalHeader
            do {
                header = try localHeader(of: entry)
            } catch {
                problems.append((entry, .localHeader, error.message))
                continue
            }
            if header.rawName != entry.rawName {
                problems.append((entry, .localHeader, "the local header names '\(String(decoding: header.rawName, as: UTF8.self))', the central directory '\(entry.name)'"))
            }
            if header.method != entry.method.code {
                problems.append((entry, .localHeader, "the local header and the central directory disagree on the compression method"))
            }
            let end = header.dataOffset + entry.compressedSize
            if end > centralDirectoryOffset {
                problems.append((entry, .bounds, "its data (\(entry.compressedSize) bytes at \(header.dataOffset)) runs into the central directory at \(centralDirectoryOffset): truncated or damaged"))
            }
            spans.append((entry.localHeaderOffset, end, entry))
        }
        spans.sort { $0.start < $1.start }
        // A running maximum, so an entry inside a long one is caught even past its neighbour.
        var reach: (end: Int64, name: String)? = nil
        for span in spans {
            if let r = reach, span.start < r.end {
                problems.append((span.entry, .overlap, "overlaps the data of '\(r.name)'; overlapping entries are a ZIP bomb technique"))
            }
            if reach == nil || span.end > reach!.end { reach = (span.end, span.entry.name) }
        }
        return problems
    }

    /// How many times each duplicated name occurs.
    public func duplicateCounts() -> [String: Int] {
        guard !duplicateNames.isEmpty else { return [:] }
        let wanted = Set(duplicateNames)
        var counts: [String: Int] = [:]
        for entry in entries where wanted.contains(entry.name) { counts[entry.name, default: 0] += 1 }
        return counts
    }

    /// Computes the CRC-32 of an entry's contents and compares it with the central directory.
    ///
    /// Returns nil when it matches, else a sentence describing the mismatch.
    public func verify(_ entry: ZipEntry, limit: Int64 = .max) throws -> String? {
        var crc = CRC32()
        var count: Int64 = 0
        try stream(entry, limit: limit) {
            crc.update($0)
            count += Int64($0.count)
        }
        if count != entry.uncompressedSize {
            return "holds \(count) bytes, the central directory says \(entry.uncompressedSize)"
        }
        if crc.value != entry.crc32 {
            return "CRC-32 is \(String(crc.value, radix: 16)), the central directory says \(String(entry.crc32, radix: 16))"
        }
        return nil
    }
}
