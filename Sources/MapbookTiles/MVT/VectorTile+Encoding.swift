// The protobuf messages of MVT 2.1's vector_tile.proto
// (https://github.com/mapbox/vector-tile-spec/blob/master/2.1/vector_tile.proto).

extension VectorTile {
    /// The tile as MVT protobuf bytes, not compressed (`Gzip.compress` does that).
    ///
    /// Writes what the model holds, as it holds it: the layers in order, each with its version
    /// first (so a reader can choose its decoding before anything else, as 4.1 asks), then name,
    /// features, keys, values and extent; features with their id when there is one, tags and
    /// geometry packed. Does not check the model: `validated(source:)` does.
    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter(capacity: 4096)
        for layer in layers {
            writer.appendMessageField(3) { layer.encode(into: &$0) }
        }
        return writer.bytes
    }
}

extension VectorTile.Layer {
    func encode(into writer: inout ProtobufWriter) {
        writer.appendVarintField(15, UInt64(version))
        writer.appendStringField(1, name)
        for feature in features {
            writer.appendMessageField(2) { feature.encode(into: &$0) }
        }
        for key in keys { writer.appendStringField(3, key) }
        for value in values {
            writer.appendMessageField(4) { value.encode(into: &$0) }
        }
        writer.appendVarintField(5, UInt64(extent))
    }
}

extension VectorTile.Feature {
    func encode(into writer: inout ProtobufWriter) {
        if let id { writer.appendVarintField(1, id) }
        writer.appendPackedField(2, tags)
        writer.appendVarintField(3, UInt64(type.rawValue))
        writer.appendPackedField(4, geometry)
    }
}

extension VectorTile.Value {
    func encode(into writer: inout ProtobufWriter) {
        switch self {
        case .string(let s): writer.appendStringField(1, s)
        case .float(let f): writer.appendFixed32Field(2, f.bitPattern)
        case .double(let d): writer.appendFixed64Field(3, d.bitPattern)
        case .int(let i): writer.appendVarintField(4, UInt64(bitPattern: i))
        case .uint(let u): writer.appendVarintField(5, u)
        case .sint(let i): writer.appendVarintField(6, ProtobufWriter.zigzag(i))
        case .bool(let b): writer.appendVarintField(7, b ? 1 : 0)
        }
    }
}
