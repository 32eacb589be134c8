import MapbookSupport

/// The GeoPackage geometry blob: the "GP" header (version, flags, SRS id, envelope) followed by
/// ISO WKB (GeoPackage 1.4, clause 2.1.3, "GeoPackageBinary").
public enum GeoPackageBinary {
    public struct Error: Swift.Error, Sendable, CustomStringConvertible {
        public enum Kind: Sendable, Hashable {
            /// No "GP" magic, an invalid envelope code, a header longer than the blob.
            case invalidHeader
            /// Extended GeoPackage geometry types (GeoPackage 1.4, clause 2.1.3.1.2).
            case extendedType
            /// The WKB after the header failed, for this reason.
            case wkb(WKB.Error.Kind)
        }

        public var kind: Kind
        public var message: String
        public var description: String { "GeoPackage geometry: \(message)" }
    }

    /// Encodes `geometry` with an XY envelope, except for points, whose envelope would only
    /// repeat them (GDAL writes them the same way), and empty geometries, which get the empty
    /// flag and no envelope, as the standard asks.
    public static func encode(_ geometry: Geometry, srsID: Int32) -> [UInt8] {
        var out: [UInt8] = [0x47, 0x50, 0]
        let isEmpty = geometry.isEmpty
        var envelope: BoundingBox?
        if !isEmpty, geometry.type != .point { envelope = geometry.envelope }
        // Flags: bit 0 little-endian, bits 1-3 envelope (0 none, 1 XY), bit 4 empty.
        var flags: UInt8 = 1
        if isEmpty { flags |= 0x10 } else if envelope != nil { flags |= 0x02 }
        out.append(flags)
        withUnsafeBytes(of: srsID.littleEndian) { out.append(contentsOf: $0) }
        if let e = envelope {
            for v in [e.minX, e.maxX, e.minY, e.maxY] { WKB.appendDouble(v, to: &out) }
        }
        WKB.append(geometry, to: &out)
        return out
    }

    /// Reads the header and the WKB; returns the geometry and the SRS id.
    /// A blob holding one 2-D point (the commonest geometry of large layers), read in place
    /// without copying it; nil for any other blob, which `decode` then reads.
    public static func plainPoint(_ bytes: UnsafeRawBufferPointer) -> Geometry? {
        guard bytes.count >= 8, bytes[0] == 0x47, bytes[1] == 0x50 else { return nil }
        let flags = bytes[3]
        guard flags & 0x20 == 0 else { return nil }
        let envelope: Int
        switch (flags >> 1) & 0x07 {
        case 0: envelope = 0
        case 1: envelope = 32
        default: return nil
        }
        let start = 8 + envelope
        guard bytes.count == start + 21 else { return nil }
        let little = bytes[start] == 1
        guard little || bytes[start] == 0 else { return nil }
        func word(_ at: Int) -> UInt32 {
            let w = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            return little ? UInt32(littleEndian: w) : UInt32(bigEndian: w)
        }
        func double(_ at: Int) -> Double {
            let w = bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            return Double(bitPattern: little ? UInt64(littleEndian: w) : UInt64(bigEndian: w))
        }
        guard word(start + 1) == 1 else { return nil }
        // An empty point is NaN, NaN, as `decode` reads it.
        return Geometry(.point(Position(x: double(start + 5), y: double(start + 13))), hasZ: false, hasM: false)
    }

    public static func decode(_ bytes: [UInt8]) throws(Error) -> (geometry: Geometry, srsID: Int32) {
        guard bytes.count >= 8, bytes[0] == 0x47, bytes[1] == 0x50 else {
            throw Error(kind: .invalidHeader, message: "no GP magic")
        }
        let flags = bytes[3]
        if flags & 0x20 != 0 { throw Error(kind: .extendedType, message: "extended GeoPackage geometry types are not supported") }
        let little = flags & 1 == 1
        var raw: UInt32 = 0
        for i in 0..<4 { raw |= UInt32(bytes[4 + i]) << (8 * i) }
        let srsID = Int32(bitPattern: little ? raw : raw.byteSwapped)
        let envelopeDoubles: Int
        switch (flags >> 1) & 0x07 {
        case 0: envelopeDoubles = 0
        case 1: envelopeDoubles = 4
        case 2, 3: envelopeDoubles = 6
        case 4: envelopeDoubles = 8
        default: throw Error(kind: .invalidHeader, message: "invalid envelope code \((flags >> 1) & 0x07)")
        }
        let start = 8 + envelopeDoubles * 8
        guard start <= bytes.count else { throw Error(kind: .invalidHeader, message: "header longer than the blob") }
        do {
            let (geometry, _) = try WKB.decode(bytes[start...])
            return (geometry, srsID)
        } catch {
            throw Error(kind: .wkb(error.kind), message: error.description)
        }
    }
}
