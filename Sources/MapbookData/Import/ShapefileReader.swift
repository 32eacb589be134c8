#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MapbookSupport

/// Reads an ESRI Shapefile: a `.shp` with the `.shx`, `.dbf`, `.prj` and `.cpg` beside it, or
/// one shapefile inside a `.zip`.
///
/// Implements the ESRI Shapefile Technical Description (July 1998) for every shape type but
/// MultiPatch, whose records are reported as unsupported and dropped. Creating a reader scans
/// the `.shp` once, reading only record headers and the rings of multi-ring records, to learn
/// the record count and whether any record needs a multi type; features are then read one at a
/// time. Memory stays bounded by the largest record, whatever the file's size.
///
/// Coordinates are returned as stored: the `.prj` only fills `schema.crs`. Not Sendable.
public final class ShapefileReader: FeatureReader {
    public let path: String
    public let schema: LayerSchema
    public private(set) var report = ImportReport()
    /// How many records are read: the `.shp`'s count, or the `.dbf`'s when it holds fewer.
    public let recordCount: Int
    /// The bounding box the `.shp` header gives, when it gives a valid one.
    public let extent: BoundingBox?
    /// The encoding attribute text is decoded with and where it came from, e.g.
    /// "windows-1252 (from the .cpg)"; nil without a `.dbf`.
    public let textEncoding: String?

    private let shp: BufferedFileReader
    private let shx: BufferedFileReader?
    private let dbf: DBFReader?
    /// Where records end: the file length the header gives, or the file's size when smaller.
    private let end: Int64
    /// How many records the `.shx` indexes, when there is one.
    private let indexedCount: Int
    private var row = 0
    /// The next record's offset when reading without an index.
    private var sequentialOffset: Int64 = 100

    /// Opens a shapefile.
    ///
    /// - Parameters:
    ///   - path: a `.shp` file, whose siblings are found case-insensitively beside it, or a `.zip`.
    ///   - encoding: the attributes' text encoding, overriding the `.cpg` and the `.dbf` header.
    ///   - layer: which shapefile of a `.zip` to read, by base name; needed when it holds
    ///     several. Ignored for a `.shp`.
    public init(path: String, encoding: String? = nil, layer: String? = nil) throws {
        self.path = path
        let lower = path.lowercased()
        var files: [String: String]
        var display: [String: String] = [:]
        let layerName: String
        // Kept until every file is open, then dropped: its folder is removed, and the open
        // descriptors keep the unlinked files readable, so nothing is left behind even if the
        // process dies while reading.
        let extraction: ShapefileZip.Extraction?
        if lower.hasSuffix(".zip") {
            let extracted = try ShapefileZip.extract(path, layer: layer)
            extraction = extracted
            files = extracted.files
            for (ext, entry) in extracted.layer.members { display[ext] = "\(path)[\(entry)]" }
            layerName = extracted.layer.name
        } else if lower.hasSuffix(".shp") {
            extraction = nil
            files = Self.siblings(of: path)
            files["shp"] = path
            display = files
            let file = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
            layerName = String(file.dropLast(4))
        } else {
            throw DataError(kind: .unsupportedFormat, path: path, message: "not a shapefile: give the .shp file, or a .zip holding shapefiles")
        }

        let shpName = display["shp"] ?? path
        shp = try BufferedFileReader(path: files["shp"]!, displayPath: shpName)
        let header = try Self.readHeader(shp)
        let fileType = header.type
        end = header.end
        extent = header.extent

        // The index is optional: without one (or with a broken one) records are found by
        // reading the .shp from the start, as GDAL does with SHAPE_RESTORE_SHX.
        var index: BufferedFileReader?
        var indexed = 0
        if let shxPath = files["shx"], let opened = try? BufferedFileReader(path: shxPath, displayPath: display["shx"] ?? shxPath),
            opened.size >= 100, let shxHeader = try? opened.read(at: 0, count: 100), shxHeader.int32BE(0) == 9994
        {
            let claimed = Int64(shxHeader.int32BE(24)) * 2
            let length = claimed >= 100 && claimed <= opened.size ? claimed : opened.size
            index = opened
            indexed = Int((length - 100) / 8)
        }
        shx = index
        indexedCount = indexed

        var cpg: String?
        if let cpgPath = files["cpg"] {
            let file = try BufferedFileReader(path: cpgPath, displayPath: display["cpg"] ?? cpgPath)
            // A .cpg names one encoding on its first line (GDAL reads 31 bytes); a file of
            // kilobytes is something else and is ignored.
            if let bytes = try file.readAll(limit: 4096) {
                cpg = String(decoding: bytes.prefix { $0 != 0x0A && $0 != 0x0D && $0 != 0 }, as: UTF8.self)
            }
        }
        var table: DBFReader?
        if let dbfPath = files["dbf"] {
            table = try DBFReader(path: dbfPath, displayPath: display["dbf"] ?? dbfPath, encoding: encoding, cpg: cpg)
        }
        dbf = table
        textEncoding = table.map { "\($0.decoder.name) (\($0.encodingSource))" }

        var crs: CoordinateReferenceSystem?
        if let prjPath = files["prj"] {
            let file = try BufferedFileReader(path: prjPath, displayPath: display["prj"] ?? prjPath)
            guard let bytes = try file.readAll(limit: 1 << 20) else {
                throw DataError(kind: .tooLarge, path: display["prj"] ?? prjPath, message: "the file is \(file.size) bytes, far too large for a coordinate system definition")
            }
            let wkt = Self.text(bytes).filter { $0 != "\u{FEFF}" && $0 != "\0" }.trimming(" \t\r\n")
            if !wkt.isEmpty {
                crs = CoordinateReferenceSystem(wkt: wkt, epsg: CoordinateTransform.identifyEPSG(CoordinateReferenceSystem(wkt: wkt)))
            }
        }

        // The first pass: how many records, of which family, and does any need a multi type.
        let scan = try Self.scan(shp: shp, shx: shx, indexedCount: indexed, end: end)
        let declared = fileType == .null ? scan.firstType : fileType
        var count = scan.count
        var warnings: [(ImportReport.Issue, Int, String)] = []
        if let table {
            for warning in table.warnings {
                warnings.append((warning.issue, warning.row, "\(table.displayPath): \(warning.message)"))
            }
            if table.recordCount != scan.count {
                // Records pair up by position, so past the shorter file there is nothing to
                // pair with: read what pairs and say what was left. When one file is empty
                // the two do not belong together at all, and reading nothing would hide it.
                if min(table.recordCount, scan.count) == 0 {
                    throw DataError(kind: .damaged, path: path, message: "the .shp holds \(scan.count) records and the .dbf \(table.recordCount): they do not belong together (a .dbf from another shapefile, or one written only halfway)")
                }
                count = min(table.recordCount, scan.count)
                warnings.append((.badValue, count + 1, "the .shp holds \(scan.count) records and the .dbf \(table.recordCount); only the first \(count) are read"))
            }
        }
        recordCount = count
        schema = LayerSchema(
            name: layerName, fields: table?.fields ?? [],
            geometryType: declared?.family?.type(multi: scan.needsMulti),
            hasZ: declared?.hasZ ?? false, hasM: declared?.hasM ?? false, crs: crs)
        for (issue, row, message) in warnings { report.note(issue, row: row, message) }
        withExtendedLifetime(extraction) {}
    }

    public func next() throws -> Feature? {
        while row < recordCount {
            row += 1
            let location = try locate(row - 1)
            var values: [FieldValue] = []
            if let dbf {
                // A record deleted in the .dbf is deleted from the shapefile (GDAL skips it too).
                guard let recordValues = try dbf.values(ofRecord: row, report: &report) else { continue }
                values = recordValues
            }
            let offset: Int64, length: Int
            switch location {
            case .end:
                return nil
            case .broken(let message):
                report.note(.invalidGeometry, row: row, "record \(row): \(message)")
                continue
            case .record(let o, let l):
                offset = o
                length = l
            }
            let content = try shp.read(at: offset + 8, count: length)
            switch ShapeRecord.decode(content) {
            case .null:
                report.note(.nullGeometry, row: row, "record \(row) is a Null shape")
                return Feature(row: row, geometry: nil, values: values)
            case .empty(let message):
                report.note(.emptyGeometry, row: row, "record \(row): \(message)")
                return Feature(row: row, geometry: nil, values: values)
            case .badCoordinate(let message):
                report.note(.badCoordinate, row: row, "record \(row): \(message)")
            case .unsupported(let message):
                report.note(.unsupportedGeometry, row: row, "record \(row): \(message)")
            case .invalid(let message):
                report.note(.invalidGeometry, row: row, "record \(row): \(message)")
            case .geometry(let geometry, let unclosed):
                guard let type = schema.geometryType, geometry.type.family == type.family else {
                    report.note(.invalidGeometry, row: row, "record \(row) holds a \(geometry.type.gpkgName.lowercased()) in a shapefile of \(schema.geometryType?.gpkgName.lowercased() ?? "null shape")s")
                    continue
                }
                if unclosed > 0 {
                    report.note(.unclosedRing, row: row, "record \(row): \(unclosed == 1 ? "a ring was" : "\(unclosed) rings were") not closed; closed by repeating the first point")
                }
                var g = geometry.withDimensions(z: schema.hasZ, m: schema.hasM)
                if type.isMulti { g = g.promotedToMulti() }
                return Feature(row: row, geometry: g, values: values)
            }
        }
        return nil
    }

    /// The shapefiles a `.zip` holds, by base name, in entry order.
    public static func layers(inZip path: String) throws -> [String] {
        try ShapefileZip.layers(in: path).map(\.name)
    }

    // MARK: - The main file

    struct Header {
        var type: ShapeType
        var end: Int64
        var extent: BoundingBox?
    }

    /// Reads and checks the 100-byte main file header (Technical Description, pages 3-4).
    static func readHeader(_ shp: BufferedFileReader) throws(DataError) -> Header {
        guard shp.size >= 100 else {
            throw DataError(kind: .truncated, path: shp.displayPath, message: "the file is \(shp.size) bytes, shorter than the 100-byte shapefile header (truncated, or not a shapefile)")
        }
        let h = try shp.read(at: 0, count: 100)
        guard h.int32BE(0) == 9994 else {
            throw DataError(kind: .unsupportedFormat, path: shp.displayPath, message: "not a shapefile: the file does not start with the shapefile file code 9994")
        }
        let raw = h.int32LE(32)
        guard let type = ShapeType(rawValue: raw) else {
            throw DataError(kind: .unsupportedFormat, path: shp.displayPath, message: "the header gives shape type \(raw), which the shapefile specification does not define")
        }
        // The header's length (in 16-bit words) is where records end; trailing bytes past it
        // are ignored, as pyshp and GDAL do. A length past the file's end means truncation,
        // found record by record.
        let claimed = Int64(h.int32BE(24)) * 2
        let end = claimed >= 100 && claimed <= shp.size ? claimed : shp.size
        let box = BoundingBox(minX: h.doubleLE(36), minY: h.doubleLE(44), maxX: h.doubleLE(52), maxY: h.doubleLE(60))
        let valid = [box.minX, box.minY, box.maxX, box.maxY].allSatisfy(\.isFinite) && !box.isEmpty
        return Header(type: type, end: end, extent: valid ? box : nil)
    }

    enum Location {
        /// A record: where its 8-byte header starts and how many content bytes follow.
        case record(offset: Int64, length: Int)
        /// A record that cannot be read, and why.
        case broken(String)
        case end
    }

    /// Where record `index` (0-based) is: from the `.shx` when there is one, else by reading on.
    private func locate(_ index: Int) throws(DataError) -> Location {
        try Self.locate(index, shp: shp, shx: shx, indexedCount: indexedCount, end: end, sequentialOffset: &sequentialOffset)
    }

    static func locate(
        _ index: Int, shp: BufferedFileReader, shx: BufferedFileReader?, indexedCount: Int, end: Int64, sequentialOffset: inout Int64
    ) throws(DataError) -> Location {
        if let shx {
            guard index < indexedCount else { return .end }
            let entry = try shx.read(at: 100 + 8 * Int64(index), count: 8)
            let offset = Int64(entry.int32BE(0)) * 2
            let indexedLength = Int64(entry.int32BE(4)) * 2
            guard offset >= 100, offset + 8 <= shp.size else {
                return .broken("the .shx places it at byte \(offset), outside the .shp's \(shp.size) bytes")
            }
            let header = try shp.read(at: offset, count: 8)
            let length = Int64(header.int32BE(4)) * 2
            // The record's own header is the .shp's word; the index's length is the fallback.
            for candidate in [length, indexedLength] where candidate >= 0 && offset + 8 + candidate <= shp.size {
                return .record(offset: offset, length: Int(candidate))
            }
            return .broken("its content of \(length) bytes at byte \(offset + 8) runs past the end of the .shp (\(shp.size) bytes; truncated?)")
        }
        let offset = sequentialOffset
        guard offset + 8 <= end else { return .end }
        let header = try shp.read(at: offset, count: 8)
        let length = Int64(header.int32BE(4)) * 2
        guard length >= 0, offset + 8 + length <= end else {
            // Without an index nothing after this record can be found.
            sequentialOffset = end
            return .broken("its content of \(length) bytes at byte \(offset + 8) runs past the end of the records at byte \(end) (truncated?); without a .shx no later record can be found")
        }
        sequentialOffset = offset + 8 + length
        return .record(offset: offset, length: Int(length))
    }

    struct Scan {
        var count = 0
        var needsMulti = false
        /// The type of the first non-null record, for files whose header says Null.
        var firstType: ShapeType?
    }

    /// Counts the records and finds whether any needs a multi type: a multipoint, or a line or
    /// polygon record of several parts that assembles to several lines or polygons. Reads
    /// 44 bytes of each record, and the whole of multi-part ones.
    static func scan(shp: BufferedFileReader, shx: BufferedFileReader?, indexedCount: Int, end: Int64) throws(DataError) -> Scan {
        var scan = Scan()
        var offset: Int64 = 100
        while true {
            let location = try locate(scan.count, shp: shp, shx: shx, indexedCount: indexedCount, end: end, sequentialOffset: &offset)
            if case .end = location { break }
            scan.count += 1
            guard case .record(let at, let length) = location, length >= 4 else { continue }
            let prefix = try shp.read(at: at + 8, count: min(length, 44))
            guard let type = ShapeType(rawValue: prefix.int32LE(0)), type != .null, type != .multiPatch else { continue }
            if scan.firstType == nil { scan.firstType = type }
            if scan.needsMulti {
                // With an index the count is known: nothing more to learn.
                if shx != nil { return Scan(count: indexedCount, needsMulti: true, firstType: scan.firstType) }
                continue
            }
            if type.isMultiPoint {
                scan.needsMulti = true
            } else if let parts = ShapeRecord.partCount(prefix), parts > 1 {
                let content = try shp.read(at: at + 8, count: length)
                if case .geometry(let g, _) = ShapeRecord.decode(content), g.type.isMulti { scan.needsMulti = true }
            }
        }
        return scan
    }

    // MARK: - Side files

    /// The `.shx`, `.dbf`, `.prj` and `.cpg` beside a `.shp`, matched case-insensitively
    /// (`roads.SHX`, `Roads.dbf`), preferring the exact base name.
    static func siblings(of shpPath: String) -> [String: String] {
        let slash = shpPath.lastIndex(of: "/")
        let directory = slash.map { String(shpPath[..<$0]) } ?? "."
        let file = slash.map { String(shpPath[shpPath.index(after: $0)...]) } ?? shpPath
        let base = String(file.dropLast(4))
        var names: [String] = []
        if let dir = opendir(directory.isEmpty ? "/" : directory) {
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) })
            }
        }
        var found: [String: String] = [:]
        for ext in ["shx", "dbf", "prj", "cpg"] {
            let wanted = "\(base).\(ext)".lowercased()
            let matches = names.filter { $0.lowercased() == wanted }.sorted()
            let preferred = ["\(base).\(ext)", "\(base).\(ext.uppercased())"].first(where: matches.contains) ?? matches.first
            if let preferred { found[ext] = slash == nil ? preferred : "\(directory)/\(preferred)" }
        }
        return found
    }

    /// UTF-8, or Latin-1 when the bytes are not valid UTF-8 (a `.prj` is ASCII in practice).
    static func text(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }
}
