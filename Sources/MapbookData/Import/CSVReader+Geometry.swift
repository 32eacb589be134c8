import MapbookSupport

extension CSVReader {
    /// Why a geometry cell could not be read.
    struct GeometryProblem: Error {
        var message: String
    }

    /// The geometry in the current record's geometry cell, made to fit the layer; nil (noted)
    /// when there is none or it does not fit.
    func geometryValue(_ column: Int, cellCount: Int, row: Int) -> Geometry? {
        let decoded: Result<(geometry: Geometry, srid: Int32?), GeometryProblem>? =
            column < cellCount
            ? tokenizer.withCell(column) { bytes, _ in
                let cell = DecimalText.trimmed(bytes)
                return cell.isEmpty ? nil : Self.decodeGeometry(cell)
            }
            : nil
        switch decoded {
        case nil:
            report.note(.nullGeometry, row: row, "line \(row) has no value in column '\(columns[column])'")
            return nil
        case .failure(let problem):
            report.note(.invalidGeometry, row: row, "line \(row), column '\(columns[column])': \(problem.message)")
            return nil
        case .success(let (geometry, srid)):
            if let layerSRID, let srid, srid > 0, srid != layerSRID {
                report.note(
                    .invalidGeometry, row: row,
                    "line \(row) has SRID \(srid) where the layer's, from the first geometry, is \(layerSRID); set `crs:` and reproject the file")
                return nil
            }
            return fitted(geometry, row: row)
        }
    }

    /// `geometry` as the layer's geometry type and dimensions, rings closed; nil (noted) when
    /// it is empty or of another family.
    private func fitted(_ geometry: Geometry, row: Int) -> Geometry? {
        if geometry.isEmpty {
            report.note(.emptyGeometry, row: row, "line \(row) has an empty \(geometry.type.gpkgName)")
            return nil
        }
        guard let layerType = schema.geometryType, let family = layerType.family else {
            // Only when the file changed since the first pass, which saw no geometry.
            report.note(.unsupportedGeometry, row: row, "line \(row) has a \(geometry.type.gpkgName) in a layer without geometry")
            return nil
        }
        var g = geometry
        if g.type == .geometryCollection, let flat = Self.flattened(g) { g = flat }
        guard g.type.family == family else {
            report.note(
                .unsupportedGeometry, row: row,
                "line \(row) has a \(g.type.gpkgName) in a layer of \(layerType.gpkgName) (the file's most common type)")
            return nil
        }
        if layerType.isMulti {
            g = g.promotedToMulti()
        } else if g.type.isMulti {
            // Only when the file changed since the first pass, which saw no multi type.
            report.note(.unsupportedGeometry, row: row, "line \(row) has a \(g.type.gpkgName) in a layer of \(layerType.gpkgName)")
            return nil
        }
        g = g.withDimensions(z: schema.hasZ, m: schema.hasM)
        var closed = false
        func close(_ rings: [[Position]]) -> [[Position]] {
            rings.map { ring in
                guard let first = ring.first, ring.last != first else { return ring }
                closed = true
                return ring + [first]
            }
        }
        switch g.shape {
        case .polygon(let rings): g.shape = .polygon(close(rings))
        case .multiPolygon(let polygons): g.shape = .multiPolygon(polygons.map(close))
        default: break
        }
        if closed { report.note(.unclosedRing, row: row, "line \(row) has a ring whose last position is not its first; it is closed") }
        return g
    }

    /// The geometry a cell holds as WKT, EWKT, hex WKB or hex EWKB (optionally after `\x`, as
    /// PostgreSQL writes `bytea`).
    static func decodeGeometry(_ cell: UnsafeBufferPointer<UInt8>) -> Result<(geometry: Geometry, srid: Int32?), GeometryProblem> {
        if let first = cell.first, first == UInt8(ascii: "\\") || hexValue(first) != nil {
            guard let bytes = hexBytes(cell) else {
                return .failure(GeometryProblem(message: "neither WKT nor hex WKB (not an even number of hex digits)"))
            }
            do throws(WKB.Error) {
                return .success(try WKB.decode(bytes))
            } catch {
                return .failure(GeometryProblem(message: "hex WKB at byte \(error.offset): \(error.message)"))
            }
        }
        do throws(WKT.Error) {
            return .success(try WKT.parseWithSRID(bytes: cell))
        } catch {
            return .failure(GeometryProblem(message: error.description))
        }
    }

    /// The type, dimensions and SRID at the start of a cell of WKT or hex WKB, read without
    /// decoding the coordinates; nil when the cell is neither.
    static func geometryHeader(_ cell: UnsafeBufferPointer<UInt8>) -> WKT.Header? {
        guard let first = cell.first else { return nil }
        guard first == UInt8(ascii: "\\") || hexValue(first) != nil else { return WKT.header(cell) }
        var hex = cell
        if hex.count >= 2, hex[0] == UInt8(ascii: "\\"), hex[1] | 0x20 == UInt8(ascii: "x") {
            hex = UnsafeBufferPointer(rebasing: hex[2...])
        }
        // At least a byte order, a type, and one point's x and y.
        guard hex.count >= 2 * (5 + 16), hex.count % 2 == 0, hex.allSatisfy({ hexValue($0) != nil }) else { return nil }
        func byte(_ k: Int) -> UInt32 { UInt32(hexValue(hex[2 * k])! << 4 | hexValue(hex[2 * k + 1])!) }
        let order = byte(0)
        guard order <= 1 else { return nil }
        func uint32(at k: Int) -> UInt32 {
            let v = byte(k) | byte(k + 1) << 8 | byte(k + 2) << 16 | byte(k + 3) << 24
            return order == 1 ? v : v.byteSwapped
        }
        var code = uint32(at: 1)
        var hasZ = code & 0x8000_0000 != 0
        var hasM = code & 0x4000_0000 != 0
        let srid = code & 0x2000_0000 != 0 ? Int32(bitPattern: uint32(at: 5)) : nil
        code &= 0x0FFF_FFFF
        switch code / 1000 {
        case 0: break
        case 1: hasZ = true
        case 2: hasM = true
        case 3: hasZ = true; hasM = true
        default: return nil
        }
        guard let type = GeometryType(rawValue: Int(code % 1000)), type != .geometry else { return nil }
        return WKT.Header(type: type, hasZ: hasZ, hasM: hasM, srid: srid)
    }

    /// A geometry collection as the multi type of the one family all its members belong to;
    /// nil when they mix families or it is not a collection.
    static func flattened(_ geometry: Geometry) -> Geometry? {
        guard case .geometryCollection = geometry.shape else { return nil }
        let members = geometry.flattenedMembers
        let families = Set(members.compactMap(\.type.family))
        guard families.count == 1, let family = families.first else { return nil }
        return Geometry.joining(members, as: family, hasZ: geometry.hasZ, hasM: geometry.hasM).promotedToMulti()
    }

    /// The bytes a run of hex digits spells, after an optional `\x`; nil when it is not one.
    static func hexBytes(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var hex = text
        if hex.count >= 2, hex[0] == UInt8(ascii: "\\"), hex[1] | 0x20 == UInt8(ascii: "x") {
            hex = UnsafeBufferPointer(rebasing: hex[2...])
        }
        guard hex.count % 2 == 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: hex.count / 2)
        for k in bytes.indices {
            guard let high = hexValue(hex[2 * k]), let low = hexValue(hex[2 * k + 1]) else { return nil }
            bytes[k] = high << 4 | low
        }
        return bytes
    }

    @inline(__always) static func hexValue(_ c: UInt8) -> UInt8? {
        if c &- 48 < 10 { return c &- 48 }
        let lower = c | 0x20
        if lower &- 97 < 6 { return lower &- 87 }
        return nil
    }
}
