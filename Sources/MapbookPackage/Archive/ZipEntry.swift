/// One entry of a ZIP central directory (APPNOTE 6.3.10, section 4.3.12).
public struct ZipEntry: Sendable, Hashable {
    /// Compression methods this toolkit reads; anything else is reported by number.
    public enum Method: Sendable, Hashable, CustomStringConvertible {
        case stored
        case deflated
        case other(UInt16)

        init(_ raw: UInt16) {
            switch raw {
            case 0: self = .stored
            case 8: self = .deflated
            default: self = .other(raw)
            }
        }

        /// The method number of APPNOTE 4.4.5.
        public var code: UInt16 {
            switch self {
            case .stored: return 0
            case .deflated: return 8
            case .other(let m): return m
            }
        }

        public var description: String {
            switch self {
            case .stored: return "stored"
            case .deflated: return "deflated"
            case .other(let n): return "method \(n)"
            }
        }
    }

    /// The entry's name as decoded (UTF-8 when flagged or valid, else Latin-1).
    public var name: String
    /// The name's bytes as stored in the central directory.
    public var rawName: [UInt8]
    /// Whether the name was valid UTF-8.
    public var nameIsUTF8: Bool
    public var method: Method
    public var flags: UInt16
    public var crc32: UInt32
    public var compressedSize: Int64
    public var uncompressedSize: Int64
    /// Offset of the local file header from the start of the archive.
    public var localHeaderOffset: Int64
    public var versionMadeBy: UInt16
    public var externalAttributes: UInt32
    /// Last modification as MS-DOS date and time fields.
    public var dosDate: UInt16
    public var dosTime: UInt16
    /// Position of this entry in the central directory, from 0.
    public var index: Int

    public var isDirectory: Bool { name.hasSuffix("/") }

    /// Whether the name ends with `suffix`, ignoring ASCII case (`.GPKG` matches `.gpkg`).
    ///
    /// Compares the stored name bytes without allocating, as it runs on every entry.
    public func hasSuffix(ignoringCase suffix: String) -> Bool {
        let tail = suffix.utf8
        guard rawName.count >= tail.count else { return false }
        var i = rawName.count - tail.count
        for expected in tail {
            var byte = rawName[i]
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            var want = expected
            if want >= 0x41 && want <= 0x5A { want |= 0x20 }
            guard byte == want else { return false }
            i += 1
        }
        return true
    }

    /// Whether the entry is encrypted (general purpose flag bit 0).
    public var isEncrypted: Bool { flags & 0x0001 != 0 }

    /// Unix file type bits, when the entry was made on Unix (APPNOTE 4.4.2: host 3).
    public var unixMode: UInt32? {
        guard versionMadeBy >> 8 == 3 else { return nil }
        return externalAttributes >> 16
    }

    /// Whether the entry is a symbolic link (Unix mode S_IFLNK).
    public var isSymbolicLink: Bool {
        guard let mode = unixMode else { return false }
        return mode & 0o170000 == 0o120000
    }

    /// Whether the entry is neither a regular file nor a directory (device, FIFO, socket, link).
    public var isSpecialFile: Bool {
        guard let mode = unixMode, mode & 0o170000 != 0 else { return false }
        let type = mode & 0o170000
        return type != 0o100000 && type != 0o040000
    }
}
