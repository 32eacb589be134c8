#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// Adds one small stored entry at the end of an archive, every other entry's bytes kept as
/// they are: the archive is cut where the central directory (or the entry being replaced)
/// began, the entry is written there, then the central directory again (the kept records
/// copied byte for byte) and the end records, ZIP64 ones when the archive needs them.
///
/// How a signature is added to a package without writing the package again. The new entry
/// has no data descriptor (its CRC is known before it is written), takes its time fields and
/// extra fields (`UT`, `ux`) from `like`, and must be the last entry of the archive if it is
/// replaced.
enum ZipAppender {
    /// Writes the new tail to `output` at `cut` (the bytes before `cut` are already there) and
    /// truncates `output` after it.
    static func append(
        name: String, bytes: [UInt8], replacing old: ZipEntry?, like: ZipEntry, in archive: ZipArchive, output: Int32, outputPath: String
    ) throws(ArchiveError) {
        let cut = old?.localHeaderOffset ?? archive.centralDirectoryOffset
        // Central directory records of every entry but the one replaced, copied as they are.
        let directory = try archive.range.read(at: archive.centralDirectoryOffset, count: Int(archive.centralDirectorySize))
        var kept: [UInt8] = []
        kept.reserveCapacity(directory.count + 128)
        var keptCount: Int64 = 0
        var p = 0
        while p + 46 <= directory.count, directory.u32(p) == 0x0201_4B50 {
            let length = 46 + Int(directory.u16(p + 28)) + Int(directory.u16(p + 30)) + Int(directory.u16(p + 32))
            guard p + length <= directory.count else { break }
            let rawName = Array(directory[(p + 46)..<(p + 46 + Int(directory.u16(p + 28)))])
            if rawName != old?.rawName {
                kept += directory[p..<(p + length)]
                keptCount += 1
            }
            p += length
        }
        let rawName = Array(name.utf8)
        let localExtra = try Self.extraFields(localOf: like, in: archive)
        let centralExtra = try Self.centralExtra(of: like, in: archive, directory: directory)
        let crc = CRC32.checksum(bytes)
        let size = UInt32(bytes.count)

        var tail: [UInt8] = []
        // Local file header (APPNOTE 4.3.7): version 2.0, UTF-8 names, stored, no descriptor.
        tail.put32(0x0403_4B50); tail.put16(20); tail.put16(0x0800); tail.put16(0)
        tail.put16(like.dosTime); tail.put16(like.dosDate); tail.put32(crc); tail.put32(size); tail.put32(size)
        tail.put16(UInt16(rawName.count)); tail.put16(UInt16(localExtra.count))
        tail += rawName; tail += localExtra; tail += bytes

        let directoryOffset = cut + Int64(tail.count)
        let needs64Offset = cut >= 0xFFFF_FFFF
        var record: [UInt8] = []
        var extra = centralExtra
        if needs64Offset { extra.put16(0x0001); extra.put16(8); extra.put64(UInt64(cut)) }
        // Central directory record (APPNOTE 4.3.12): made on Unix, mode 0644.
        record.put32(0x0201_4B50); record.put16(like.versionMadeBy); record.put16(needs64Offset ? 45 : 20); record.put16(0x0800); record.put16(0)
        record.put16(like.dosTime); record.put16(like.dosDate); record.put32(crc); record.put32(size); record.put32(size)
        record.put16(UInt16(rawName.count)); record.put16(UInt16(extra.count)); record.put16(0); record.put16(0); record.put16(0)
        record.put32(UInt32(0o100644) << 16); record.put32(needs64Offset ? 0xFFFF_FFFF : UInt32(cut))
        record += rawName; record += extra
        tail += kept; tail += record

        let count = keptCount + 1
        let directorySize = Int64(kept.count + record.count)
        if count >= 0xFFFF || directoryOffset >= 0xFFFF_FFFF || directorySize >= 0xFFFF_FFFF {
            // ZIP64 end of central directory record and locator (APPNOTE 4.3.14, 4.3.15).
            let zip64At = directoryOffset + directorySize
            tail.put32(0x0606_4B50); tail.put64(44); tail.put16(45); tail.put16(45); tail.put32(0); tail.put32(0)
            tail.put64(UInt64(count)); tail.put64(UInt64(count)); tail.put64(UInt64(directorySize)); tail.put64(UInt64(directoryOffset))
            tail.put32(0x0706_4B50); tail.put32(0); tail.put64(UInt64(zip64At)); tail.put32(1)
        }
        tail.put32(0x0605_4B50); tail.put16(0); tail.put16(0)
        tail.put16(UInt16(min(count, 0xFFFF))); tail.put16(UInt16(min(count, 0xFFFF)))
        tail.put32(UInt32(min(directorySize, 0xFFFF_FFFF))); tail.put32(UInt32(min(directoryOffset, 0xFFFF_FFFF))); tail.put16(0)

        let failure = tail.withUnsafeBytes { raw -> Int32 in
            var done = 0
            while done < raw.count {
                let n = pwrite(output, raw.baseAddress! + done, raw.count - done, off_t(cut) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += n
            }
            return ftruncate(output, off_t(cut) + off_t(raw.count)) == 0 ? 0 : errno
        }
        if failure != 0 {
            throw ArchiveError(kind: .io(errno: failure), operation: "write", path: outputPath, message: FileSystem.errorMessage(failure))
        }
    }

    /// The extra fields of `entry`'s local header.
    static func extraFields(localOf entry: ZipEntry, in archive: ZipArchive) throws(ArchiveError) -> [UInt8] {
        let header = try archive.range.read(at: entry.localHeaderOffset, count: 30)
        let nameLength = Int(header.u16(26)), extraLength = Int(header.u16(28))
        let extra = try archive.range.read(at: entry.localHeaderOffset + 30 + Int64(nameLength), count: extraLength)
        return withoutZip64(extra)
    }

    /// The extra fields of `entry`'s central directory record.
    static func centralExtra(of entry: ZipEntry, in archive: ZipArchive, directory: [UInt8]) throws(ArchiveError) -> [UInt8] {
        var p = 0
        while p + 46 <= directory.count, directory.u32(p) == 0x0201_4B50 {
            let nameLength = Int(directory.u16(p + 28)), extraLength = Int(directory.u16(p + 30))
            let length = 46 + nameLength + extraLength + Int(directory.u16(p + 32))
            guard p + length <= directory.count else { break }
            if Array(directory[(p + 46)..<(p + 46 + nameLength)]) == entry.rawName {
                return withoutZip64(Array(directory[(p + 46 + nameLength)..<(p + 46 + nameLength + extraLength)]))
            }
            p += length
        }
        return []
    }

    /// Extra fields without the ZIP64 one, which describes another entry's sizes and offset.
    static func withoutZip64(_ extra: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var e = 0
        while e + 4 <= extra.count {
            let size = Int(extra.u16(e + 2))
            guard e + 4 + size <= extra.count else { break }
            if extra.u16(e) != 0x0001 { out += extra[e..<(e + 4 + size)] }
            e += 4 + size
        }
        return out
    }
}

extension [UInt8] {
    fileprivate mutating func put16(_ v: UInt16) { appendLittleEndian(v) }
    fileprivate mutating func put32(_ v: UInt32) { appendLittleEndian(v) }
    fileprivate mutating func put64(_ v: UInt64) { appendLittleEndian(v) }
}
