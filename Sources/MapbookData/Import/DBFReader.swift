import MapbookSupport

/// Reads a shapefile's attribute table: a dBASE III+ `.dbf` file, record by record.
///
/// The header is the 32-byte dBASE III table header followed by 32-byte field descriptors
/// ending in 0x0D; records are fixed-length text with a one-byte deletion flag (dBASE III+
/// table file format, as in the Xbase documentation and shapelib's `dbfopen.c`). Only the
/// header is held in memory; each record is read when asked for. Not Sendable.
final class DBFReader {
    /// One field descriptor.
    struct Column: Sendable {
        var name: String
        /// The dBASE type letter: C, N, F, L, D, M, ...
        var letter: Character
        var length: Int
        var decimals: Int
        /// Where the value starts in a record (after the deletion flag).
        var offset: Int
        var type: FieldType
    }

    let displayPath: String
    let columns: [Column]
    /// The records the file holds: the header's count, or fewer when the file ends sooner.
    let recordCount: Int
    /// The language driver id, header byte 29 (0 when unset).
    let languageDriver: UInt8
    let decoder: DBFTextDecoder
    /// Where the encoding came from, in words: "given", "from the .cpg", ...
    let encodingSource: String
    /// Problems found in the header that do not stop reading, for the import report.
    let warnings: [(issue: ImportReport.Issue, row: Int, message: String)]

    private let file: BufferedFileReader
    private let headerLength: Int
    private let recordLength: Int

    var fields: [Field] { columns.map { Field(name: $0.name, type: $0.type) } }

    /// Opens a `.dbf` and reads its header. `encoding` (a user's choice) wins over `cpg` (the
    /// `.cpg` file's text), which wins over the language driver byte; with none of them, text
    /// is UTF-8 with a Latin-1 fallback.
    init(path: String, displayPath: String, encoding: String?, cpg: String?) throws(DataError) {
        self.displayPath = displayPath
        file = try BufferedFileReader(path: path, displayPath: displayPath)
        guard file.size >= 32 else {
            throw DataError(kind: .truncated, path: displayPath, message: "the file is \(file.size) bytes, shorter than the 32-byte dBASE header (truncated, or not a .dbf)")
        }
        let header = try file.read(at: 0, count: 32)
        // dBASE 7 (level 4) has 48-byte field descriptors and types shapefiles never use.
        if header[0] & 0x07 == 4 {
            throw DataError(kind: .unsupportedFormat, path: displayPath, message: "this is a dBASE 7 table (version byte 0x\(String(header[0], radix: 16))); shapefiles use dBASE III, so convert it, e.g. with ogr2ogr")
        }
        let claimedRecords = Int(header.uint32LE(4))
        headerLength = Int(header.uint16LE(8))
        recordLength = Int(header.uint16LE(10))
        languageDriver = header[29]
        guard headerLength >= 33, Int64(headerLength) <= file.size else {
            throw DataError(kind: .damaged, path: displayPath, message: "the header claims to be \(headerLength) bytes long, which does not fit a header of 32 bytes plus field descriptors in this \(file.size)-byte file")
        }
        guard recordLength >= 1 else {
            throw DataError(kind: .damaged, path: displayPath, message: "the header gives a record length of 0")
        }

        var warnings: [(issue: ImportReport.Issue, row: Int, message: String)] = []
        var chosen: DBFTextDecoder?
        var source = "the default: no .cpg or language driver id names a known encoding"
        if let encoding {
            guard let decoder = DBFTextDecoder(name: encoding) else {
                throw DataError(kind: .invalidOption, path: displayPath, message: "unknown text encoding '\(encoding)'; name one iconv knows, such as UTF-8, windows-1252, ISO-8859-1 or CP850")
            }
            chosen = decoder
            source = "as given"
        }
        if chosen == nil, let cpg, !cpg.trimming(" \t\r\n").isEmpty {
            chosen = DBFTextDecoder(name: cpg)
            if chosen == nil {
                warnings.append((.encoding, 1, "the .cpg names the encoding '\(cpg.trimming(" \t\r\n"))', which this system does not know; text is read as UTF-8, or Latin-1 where it is not valid UTF-8"))
            } else {
                source = "from the .cpg"
            }
        }
        if chosen == nil, let codePage = DBFTextDecoder.codePage(languageDriver: header[29]) {
            chosen = DBFTextDecoder(name: codePage)
            if chosen != nil { source = "from the .dbf language driver id 0x\(String(header[29], radix: 16, uppercase: true))" }
        }
        decoder = chosen ?? DBFTextDecoder(.utf8OrLatin1)
        encodingSource = source

        let descriptors = try file.read(at: 0, count: headerLength)
        var columns: [Column] = []
        var offset = 1
        var position = 32
        while position + 32 <= headerLength, descriptors[position] != 0x0D {
            let d = Array(descriptors[position..<position + 32])
            let nameBytes = d[0..<11].prefix { $0 != 0 }
            var name = decoder.decode(nameBytes).text.trimming(" \t\r\n")
            if name.isEmpty { name = "FIELD_\(columns.count + 1)" }
            let letter = Character(Unicode.Scalar(d[11]))
            // Only numbers have decimals; Clipper and FoxPro store the high byte of a long
            // character field's length there (shapelib reads it the same way).
            let numeric = letter == "N" || letter == "F"
            let length = numeric ? Int(d[16]) : Int(d[16]) + Int(d[17]) * 256
            let decimals = numeric ? Int(d[17]) : 0
            columns.append(Column(name: name, letter: letter, length: length, decimals: decimals, offset: offset, type: Self.fieldType(letter, length: length, decimals: decimals)))
            offset += length
            position += 32
        }
        guard offset <= recordLength else {
            throw DataError(kind: .damaged, path: displayPath, message: "the fields take \(offset) bytes per record with the deletion flag, more than the record length of \(recordLength) the header gives")
        }
        self.columns = Self.deduplicated(columns)

        let available = Int((file.size - Int64(headerLength)) / Int64(recordLength))
        if claimedRecords > available {
            warnings.append((.badValue, available + 1, "the header claims \(claimedRecords) records, but the file ends after \(available) (truncated?)"))
        }
        recordCount = min(claimedRecords, available)
        self.warnings = warnings
    }

    /// C text, N integer or real by its decimals, F real, L boolean, D date, anything else
    /// (M memo block numbers, binary FoxPro types) text.
    static func fieldType(_ letter: Character, length: Int, decimals: Int) -> FieldType {
        switch letter {
        case "N": return decimals == 0 && length <= 18 ? .integer : .real
        case "F": return .real
        case "L": return .boolean
        case "D": return .date
        default: return .text
        }
    }

    /// Renames case-insensitive duplicates `NAME_2`, `NAME_3`, ... so every field can be a column.
    static func deduplicated(_ columns: [Column]) -> [Column] {
        var taken = Set<String>()
        return columns.map { column in
            var column = column
            if !taken.insert(column.name.lowercased()).inserted {
                var n = 2
                while taken.contains("\(column.name)_\(n)".lowercased()) { n += 1 }
                column.name = "\(column.name)_\(n)"
                taken.insert(column.name.lowercased())
            }
            return column
        }
    }

    /// The values of record `row` (1-based), or nil when the record is marked deleted. Values
    /// that cannot be read become null and are noted in `report`.
    func values(ofRecord row: Int, report: inout ImportReport) throws(DataError) -> [FieldValue]? {
        precondition(row >= 1 && row <= recordCount)
        let record = try file.read(at: Int64(headerLength) + Int64(row - 1) * Int64(recordLength), count: recordLength)
        if record[0] == UInt8(ascii: "*") { return nil }
        return columns.map { value(of: $0, in: record, row: row, report: &report) }
    }

    private func value(of column: Column, in record: [UInt8], row: Int, report: inout ImportReport) -> FieldValue {
        // Padding is spaces, or NULs from some writers; shapelib trims both ends too.
        var start = column.offset, end = column.offset + column.length
        while start < end, record[start] == 0x20 || record[start] == 0 { start += 1 }
        while end > start, record[end - 1] == 0x20 || record[end - 1] == 0 { end -= 1 }
        if start == end { return .null }
        let raw = record[start..<end]
        switch column.type {
        case .text:
            let (text, exact) = decoder.decode(raw)
            if !exact {
                let how = decoder.kind == .utf8OrLatin1
                    ? "is not valid UTF-8 and no encoding is declared (.cpg); read as Latin-1"
                    : "has bytes that are not valid \(decoder.name); they were replaced by U+FFFD"
                report.note(.encoding, row: row, "field \(column.name): '\(text)' \(how)")
            }
            return .text(text)
        case .integer:
            if let i = Self.integer(raw) { return .integer(i) }
            // GDAL and shapelib write a null number as asterisks filling the field.
            if raw.allSatisfy({ $0 == UInt8(ascii: "*") }) { return .null }
            let text = String(decoding: raw, as: UTF8.self)
            if Self.isNumber(raw) {
                if let i = Int64(text) { return .integer(i) }
                // "12.0" in a field declared without decimals.
                if let d = Double(text), d == d.rounded(), abs(d) < 9.2e18 { return .integer(Int64(d)) }
            }
            report.note(.badValue, row: row, "field \(column.name): '\(text)' is not an integer; read as null")
            return .null
        case .real:
            if raw.allSatisfy({ $0 == UInt8(ascii: "*") }) { return .null }
            let text = String(decoding: raw, as: UTF8.self)
            if Self.isNumber(raw), let d = Double(text), d.isFinite { return .real(d) }
            report.note(.badValue, row: row, "field \(column.name): '\(text)' is not a number; read as null")
            return .null
        case .boolean:
            switch raw.first! {
            case UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: "Y"), UInt8(ascii: "y"): return .integer(1)
            case UInt8(ascii: "F"), UInt8(ascii: "f"), UInt8(ascii: "N"), UInt8(ascii: "n"): return .integer(0)
            case UInt8(ascii: "?"): return .null
            default:
                report.note(.badValue, row: row, "field \(column.name): '\(String(decoding: raw, as: UTF8.self))' is not a logical value (T, F, Y, N or ?); read as null")
                return .null
            }
        case .date:
            if raw.allSatisfy({ $0 == UInt8(ascii: "0") }) { return .null }
            if let date = Self.isoDate(raw) { return .text(date) }
            report.note(.badValue, row: row, "field \(column.name): '\(String(decoding: raw, as: UTF8.self))' is not a date (YYYYMMDD); read as null")
            return .null
        case .dateTime, .blob:
            return .text(decoder.decode(raw).text)
        }
    }

    /// An optional sign and decimal digits, without going through `String`: most numbers in
    /// a table are integers.
    private static func integer(_ raw: ArraySlice<UInt8>) -> Int64? {
        var i = raw.startIndex
        let negative = raw[i] == UInt8(ascii: "-")
        if negative || raw[i] == UInt8(ascii: "+") { i += 1 }
        guard i < raw.endIndex, raw.endIndex - i <= 18 else { return nil }
        var value: Int64 = 0
        while i < raw.endIndex {
            let byte = raw[i]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
            i += 1
        }
        return negative ? -value : value
    }

    /// Only digits, signs, a decimal point and an exponent: `Double` alone would also take
    /// "nan", "inf" and hexadecimal.
    private static func isNumber(_ raw: ArraySlice<UInt8>) -> Bool {
        raw.contains { $0 >= 0x30 && $0 <= 0x39 }
            && raw.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E || $0 == 0x45 || $0 == 0x65 }
    }

    /// "YYYYMMDD" as "YYYY-MM-DD", or nil when it is not a calendar date.
    static func isoDate(_ raw: ArraySlice<UInt8>) -> String? {
        guard raw.count == 8, raw.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let digits = raw.map { Int($0 - 0x30) }
        let year = digits[0] * 1000 + digits[1] * 100 + digits[2] * 10 + digits[3]
        let month = digits[4] * 10 + digits[5]
        let day = digits[6] * 10 + digits[7]
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...lengths[month - 1]).contains(day) else { return nil }
        let text = String(decoding: raw, as: UTF8.self)
        return "\(text.prefix(4))-\(text.dropFirst(4).prefix(2))-\(text.suffix(2))"
    }
}
