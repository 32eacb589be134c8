import MapbookSupport

/// How to read a CSV file: what to detect and what the project file says instead.
///
/// Every option left nil is detected from the file; see `CSVReader` for how.
public struct CSVOptions: Sendable, Equatable {
    /// The text encodings a CSV file may be written in.
    public enum Encoding: String, Sendable, CaseIterable {
        case utf8 = "utf-8"
        /// ISO 8859-1: every byte is the code point of the same value.
        case latin1 = "latin1"
        /// Windows code page 1252: Latin-1 with printable characters (€, “, ”, –) in 0x80...0x9F.
        case windows1252 = "windows-1252"

        /// Reads the names a project file may use: "utf-8", "utf8", "latin1", "latin-1",
        /// "iso-8859-1", "windows-1252", "cp1252", in any case.
        public init?(name: String) {
            switch name.trimming(" \t\r\n").lowercased() {
            case "utf-8", "utf8": self = .utf8
            case "latin1", "latin-1", "iso-8859-1", "iso8859-1", "iso_8859-1", "l1": self = .latin1
            case "windows-1252", "cp1252", "win1252", "windows1252": self = .windows1252
            default: return nil
            }
        }

        /// The text `bytes` encode, and whether they were valid: invalid UTF-8 is replaced
        /// with U+FFFD. Latin-1 and Windows-1252 decode any byte.
        func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> (text: String, valid: Bool) {
            if self == .utf8 {
                if let text = String(validating: bytes, as: UTF8.self) { return (text, true) }
                return (String(decoding: bytes, as: UTF8.self), false)
            }
            var ascii = true
            for b in bytes where b >= 0x80 {
                ascii = false
                break
            }
            if ascii { return (String(decoding: bytes, as: UTF8.self), true) }
            var utf8: [UInt8] = []
            utf8.reserveCapacity(bytes.count * 2)
            for b in bytes {
                var scalar = UInt32(b)
                if self == .windows1252, b >= 0x80, b < 0xA0 { scalar = Self.windows1252High[Int(b - 0x80)] }
                if scalar < 0x80 {
                    utf8.append(UInt8(scalar))
                } else if scalar < 0x800 {
                    utf8.append(UInt8(0xC0 | scalar >> 6))
                    utf8.append(UInt8(0x80 | scalar & 0x3F))
                } else {
                    utf8.append(UInt8(0xE0 | scalar >> 12))
                    utf8.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                    utf8.append(UInt8(0x80 | scalar & 0x3F))
                }
            }
            return (String(decoding: utf8, as: UTF8.self), true)
        }

        /// The code points of Windows-1252's bytes 0x80...0x9F (the five it leaves undefined
        /// map to the C1 control of the same value, as the WHATWG Encoding Standard does).
        private static let windows1252High: [UInt32] = [
            0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
            0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
            0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
            0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
        ]
    }

    /// The byte between cells; nil: the most frequent of `,` `;` tab `|` in the header row.
    public var delimiter: UInt8?
    /// The column of x (longitude, easting); nil: detected by name.
    public var x: String?
    /// The column of y (latitude, northing); nil: detected by name.
    public var y: String?
    /// The column holding WKT, EWKT, or hex WKB or EWKB; nil: detected by name or content.
    public var geometry: String?
    /// Field types that replace the inferred ones, by column name.
    public var types: [String: FieldType]
    /// The coordinate system of the coordinates; nil: an EWKB or EWKT SRID if the geometry
    /// column has one, else unknown (the packager then assumes WGS 84).
    public var crs: CoordinateReferenceSystem?
    public var encoding: Encoding

    /// How many bytes are read from the file at a time; small values exercise records that
    /// straddle reads.
    var chunkSize = 1 << 20

    public init(
        delimiter: UInt8? = nil, x: String? = nil, y: String? = nil, geometry: String? = nil,
        types: [String: FieldType] = [:], crs: CoordinateReferenceSystem? = nil, encoding: Encoding = .utf8
    ) {
        self.delimiter = delimiter
        self.x = x
        self.y = y
        self.geometry = geometry
        self.types = types
        self.crs = crs
        self.encoding = encoding
    }
}
