import MapbookSupport

extension CSVReader {
    /// What the first pass learns about one column: the types its cells fit and, while it
    /// may be one, whether it is a geometry column.
    struct ColumnProfile {
        static let integer: UInt8 = 1
        static let real: UInt8 = 2
        static let date: UInt8 = 4
        static let dateTime: UInt8 = 8

        /// The types every non-empty cell so far can be read as; 0 once only text fits (or
        /// when the options fix the type).
        var candidates: UInt8 = integer | real | date | dateTime
        /// How many cells held something (counted while the column is examined).
        var nonEmpty = 0
        /// Whether cells are still examined as geometries.
        var sniffing = false
        /// Whether to go on examining after a cell that is not a geometry: for a column named
        /// like a geometry column, or named by the options.
        var tolerant = false
        /// How many cells were WKT or hex WKB.
        var geometryCells = 0
        var tally = GeometryTally()

        /// The type every non-empty cell fits, most specific first.
        var inferredType: FieldType {
            if nonEmpty == 0 { return .text }
            if candidates & Self.integer != 0 { return .integer }
            if candidates & Self.real != 0 { return .real }
            if candidates & Self.date != 0 { return .date }
            if candidates & Self.dateTime != 0 { return .dateTime }
            return .text
        }

        /// Narrows the candidate types to those `cell` (trimmed, not empty) fits.
        mutating func infer(_ cell: UnsafeBufferPointer<UInt8>) {
            var fits: UInt8 = 0
            if candidates & (Self.integer | Self.real) != 0 {
                if DecimalText.int64(cell, .inference) != nil {
                    fits = Self.integer | Self.real
                } else if !Self.isDigits(cell), DecimalText.double(cell, .inference) != nil {
                    // A run of digits that is no integer has leading zeros or more than 64
                    // bits: an identifier, kept as text rather than rounded.
                    fits = Self.real
                }
            }
            if fits == 0, candidates & (Self.date | Self.dateTime) != 0, cell.count >= 10 {
                if cell.count == 10 {
                    if DateTimeText.isDate(cell) { fits = Self.date | Self.dateTime }
                } else if candidates & Self.dateTime != 0, let parsed = DateTimeText.parse(cell), parsed.time != nil {
                    fits = Self.dateTime
                }
            }
            candidates &= fits
        }

        /// Records `cell` (trimmed, not empty) as a geometry, or stops examining the column.
        mutating func sniff(_ cell: UnsafeBufferPointer<UInt8>) {
            if let header = CSVReader.geometryHeader(cell) {
                geometryCells += 1
                tally.add(header, cell)
            } else if !tolerant {
                sniffing = false
            }
        }

        private static func isDigits(_ cell: UnsafeBufferPointer<UInt8>) -> Bool {
            var i = 0
            if i < cell.count, cell[i] == UInt8(ascii: "-") { i += 1 }
            guard i < cell.count else { return false }
            while i < cell.count {
                guard cell[i] &- 48 < 10 else { return false }
                i += 1
            }
            return true
        }
    }

    /// The geometry types a column holds, counted by family, for the layer's geometry type.
    struct GeometryTally {
        var counts: [GeometryFamily: Int] = [:]
        /// The families some row of which is a multi type.
        var multi: Set<GeometryFamily> = []
        /// Collections whose members are of several families, and other oddities.
        var mixed = 0
        var hasZ = false
        var hasM = false
        /// The first SRID an EWKB or EWKT cell gives.
        var srid: Int32?

        /// The most common family, the first of point, line, polygon on a tie; nil when
        /// there are no geometries.
        var family: GeometryFamily? {
            var best: (GeometryFamily, Int)?
            for f in [GeometryFamily.point, .line, .polygon] {
                if let n = counts[f], n > (best?.1 ?? 0) { best = (f, n) }
            }
            return best?.0
        }

        mutating func add(_ header: WKT.Header, _ cell: UnsafeBufferPointer<UInt8>) {
            hasZ = hasZ || header.hasZ
            hasM = hasM || header.hasM
            if srid == nil { srid = header.srid }
            if let f = header.type.family {
                counts[f, default: 0] += 1
                if header.type.isMulti { multi.insert(f) }
            } else if case .success(let decoded) = CSVReader.decodeGeometry(cell),
                let f = CSVReader.flattened(decoded.geometry)?.type.family
            {
                // A collection of one family counts as that family's multi type; it is read
                // as one.
                counts[f, default: 0] += 1
                multi.insert(f)
            } else {
                mixed += 1
            }
        }
    }

    /// Reads every record after the header once, profiling each column; returns how many
    /// records there are.
    static func scan(_ tokenizer: CSVTokenizer, into profiles: inout [ColumnProfile]) throws(DataError) -> Int {
        var records = 0
        var failure: DataError?
        profiles.withUnsafeMutableBufferPointer { profiles in
            do throws(DataError) {
                while try tokenizer.nextRecord() {
                    records += 1
                    let count = min(tokenizer.cellCount, profiles.count)
                    for k in 0..<count where profiles[k].candidates != 0 || profiles[k].sniffing {
                        tokenizer.withCell(k) { bytes, _ in
                            let cell = DecimalText.trimmed(bytes)
                            guard !cell.isEmpty else { return }
                            profiles[k].nonEmpty += 1
                            if profiles[k].candidates != 0 { profiles[k].infer(cell) }
                            if profiles[k].sniffing { profiles[k].sniff(cell) }
                        }
                    }
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return records
    }
}
