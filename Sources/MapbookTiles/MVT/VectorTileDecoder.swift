// What the decoder does with a malformed tile (the policy, defect by defect).
//
// Nothing in the input can make it crash, loop, or allocate by a size the input claims: every
// length is checked against the bytes left in its enclosing message, packed arrays reserve
// only as many elements as their bytes hold varints, geometry counts are checked against the
// integers left, and gzip output grows by doubling up to `inflateLimit`.
//
// The tile is refused (`decode` throws) when its bytes are not well-formed protobuf or a layer
// or value is wrong, since nothing after that can be trusted or shown correctly:
//   - a varint longer than 10 bytes or past 64 bits, data ending inside a field, a length
//     running past its enclosing message, field number 0, a group (wire types 3 and 4) or
//     wire types 6 and 7, anywhere in the tile;
//   - gzip data that is damaged, truncated, or inflates past `inflateLimit`;
//   - a known tile, layer or value field with the wrong wire type (mvt-fixtures 007, 008,
//     010, 013);
//   - a layer without a name or with an empty one (014, 023), without a version (024; proto2
//     would default it to 1, but 4.1 says a layer MUST have one), with a version other than 1
//     or 2 (012), with extent 0, or with the name of an earlier layer (015: 4.1 says a tile
//     MUST NOT have two);
//   - a value with no field, more than one, or a field MVT 2.1 does not define (011, 026);
//     its extensions range is for future versions, and guessing would misreport attributes.
// A feature is skipped, with a warning naming it, when it is well-formed protobuf but wrong
// on its own, since its layer's other features are still good:
//   - a known feature field with the wrong wire type, or twice (030: two geometry fields);
//   - a type outside 0...3 (006), no geometry field (004). No type at all is UNKNOWN, the
//     proto2 default: encoders leave a default out, so 003 (no type, invalid) and 016
//     (UNKNOWN, "valid", decoders "can choose to use or throw") are the same bytes; with
//     `checksGeometry` an UNKNOWN feature with a geometry is skipped (4.3.4 gives it no
//     encoding), without it both are kept as encoded;
//   - an odd number of tags (005), or a tag pointing past the key or value table (040, 041,
//     042), or a tag or geometry integer past 32 bits;
//   - with `checksGeometry` (the default): geometry commands that do not decode (044, 045,
//     046, 047, 048, 051, 052, 057, 058, 061, unknown command ids, a polygon with no ring of
//     non-zero area; a zero-area ring among others is dropped, as MapLibre does), see
//     `VectorTile.Feature.decodeGeometry()`.
// Strings that are not valid UTF-8 are kept with U+FFFD in place of bad bytes, with a warning.
// Unknown fields of the tile, layers and features are skipped (the spec's extensions).

/// Decodes MVT 2.1 tiles, gzipped or not, into `VectorTile` and the warnings for what it
/// skipped.
///
/// A decoder rather than `VectorTile.init(decoding:)` because decoding has options (the
/// inflate limit, whether to check geometry) and two results (the tile and its warnings).
public struct VectorTileDecoder: Sendable {
    /// The most bytes a gzipped tile may inflate to.
    public var inflateLimit: Int
    /// Whether to decode every feature's geometry and skip those that do not decode. Turn it
    /// off to keep a tile exactly as encoded (raw command integers are never changed).
    public var checksGeometry: Bool

    public init(inflateLimit: Int = Gzip.defaultInflateLimit, checksGeometry: Bool = true) {
        self.inflateLimit = inflateLimit
        self.checksGeometry = checksGeometry
    }

    /// Decodes one tile; `source` names it in errors and warnings (a file name, a tile address).
    public func decode(_ bytes: [UInt8], source: String) throws(MVTError) -> VectorTile.Decoded {
        try withRawBytes(bytes) { (raw) throws(MVTError) in try decode(raw, source: source) }
    }

    /// Decodes one tile from memory the caller owns (a memory-mapped bundle, say); nothing of
    /// `bytes` is kept.
    public func decode(_ bytes: UnsafeRawBufferPointer, source: String) throws(MVTError) -> VectorTile.Decoded {
        var decoded: VectorTile.Decoded
        if Gzip.hasMagic(bytes) {
            let inflated = try Gzip.decompress(bytes, limit: inflateLimit, source: source)
            decoded = try withRawBytes(inflated) { (raw) throws(MVTError) in try decodeProtobuf(raw, source: source) }
            decoded.wasCompressed = true
        } else {
            decoded = try decodeProtobuf(bytes, source: source)
        }
        return decoded
    }

    func decodeProtobuf(_ bytes: UnsafeRawBufferPointer, source: String) throws(MVTError) -> VectorTile.Decoded {
        var reader = ProtobufReader(bytes)
        var result = VectorTile.Decoded(tile: VectorTile(), warnings: [])
        var layerNumber = 0
        // A set, not a scan of the layers so far: a hostile tile may hold millions of layers.
        var names: Set<String> = []
        do throws(MVTError) {
            while !reader.isAtEnd {
                let (field, wireType) = try reader.readKey()
                guard field == 3 else {
                    try reader.skip(wireType)
                    continue
                }
                guard wireType == .lengthDelimited else {
                    throw MVTError(kind: .invalidField, source: "", message: "the tile's field 3 (layers) has wire type \(wireType.name), not length-delimited")
                }
                let range = try reader.readLengthDelimited()
                var decoder = LayerDecoder(reader: reader.reader(over: range), number: layerNumber, source: source, checksGeometry: checksGeometry)
                let layer = try decoder.decode()
                guard names.insert(layer.name).inserted else {
                    throw MVTError(kind: .duplicateLayerName, source: source, layer: layer.name, message: "a second layer has this name (MVT 4.1: a tile MUST NOT hold two layers of the same name)")
                }
                result.tile.layers.append(layer)
                result.warnings += decoder.warnings
                layerNumber += 1
            }
        } catch {
            throw error.located(source: source)
        }
        return result
    }
}

extension VectorTile {
    /// A decoded tile and what the decoder skipped to get it.
    public struct Decoded: Sendable {
        public var tile: VectorTile
        /// One per skipped feature or repaired string, in tile order.
        public var warnings: [MVTError]
        /// Whether the tile was gzipped.
        public var wasCompressed = false

        public init(tile: VectorTile, warnings: [MVTError], wasCompressed: Bool = false) {
            self.tile = tile
            self.warnings = warnings
            self.wasCompressed = wasCompressed
        }
    }
}

/// Decodes one `Tile.Layer` message.
struct LayerDecoder {
    var reader: ProtobufReader
    let number: Int
    let source: String
    let checksGeometry: Bool
    var warnings: [MVTError] = []
    /// The name, for messages; found by a first pass over the layer's fields.
    var name: String?

    init(reader: ProtobufReader, number: Int, source: String, checksGeometry: Bool) {
        self.reader = reader
        self.number = number
        self.source = source
        self.checksGeometry = checksGeometry
    }

    func error(_ kind: MVTError.Kind, _ message: String, feature: Int? = nil, id: UInt64? = nil) -> MVTError {
        if let name { return MVTError(kind: kind, source: source, layer: name, feature: feature, featureID: id, message: message) }
        return MVTError(kind: kind, source: source, message: "layer \(number): " + message)
    }

    /// An error from the protobuf reader, which knows no layer, placed in this one.
    func placed(_ error: MVTError, feature: Int? = nil) -> MVTError {
        guard error.source.isEmpty && error.layer == nil else { return error }
        return self.error(error.kind, error.message, feature: feature)
    }

    /// The layer's name, read ahead: the name (field 1) usually comes first, but the spec does
    /// not promise it, and every message about the layer should carry it. Stops quietly at
    /// broken bytes, which the full read then reports.
    private func peekName() -> String? {
        var scan = reader
        var found: Range<Int>?
        do throws(MVTError) {
            while !scan.isAtEnd {
                let (field, wireType) = try scan.readKey()
                if field == 1 && wireType == .lengthDelimited {
                    found = try scan.readLengthDelimited()
                } else {
                    try scan.skip(wireType)
                }
            }
        } catch {}
        guard let found, !found.isEmpty else { return nil }
        return reader.string(found).string
    }

    mutating func decode() throws(MVTError) -> VectorTile.Layer {
        var layer = VectorTile.Layer(name: "", version: 0, extent: 4096)
        var version: UInt64?
        var extent: UInt64?
        var sawName = false
        // Features are decoded before the key and value tables may be known; their tags are
        // checked at the end. `positions` keeps each kept feature's index as encoded.
        var positions: [Int] = []
        var featureNumber = 0
        name = peekName()
        do throws(MVTError) {
            while !reader.isAtEnd {
                let (field, wireType) = try reader.readKey()
                func expect(_ expected: WireType, _ what: String) throws(MVTError) {
                    guard wireType == expected else {
                        throw error(.invalidField, "field \(field) (\(what)) has wire type \(wireType.name), not \(expected.name)")
                    }
                }
                switch field {
                case 1:
                    try expect(.lengthDelimited, "name")
                    let (string, valid) = reader.string(try reader.readLengthDelimited())
                    layer.name = string
                    sawName = true
                    if !valid { warnings.append(error(.invalidUTF8, "the layer name is not valid UTF-8; bad bytes became U+FFFD")) }
                case 2:
                    try expect(.lengthDelimited, "feature")
                    let range = try reader.readLengthDelimited()
                    let outcome: FeatureOutcome
                    do throws(MVTError) { outcome = try decodeFeature(reader.reader(over: range)) } catch { throw placed(error, feature: featureNumber) }
                    switch outcome {
                    case .kept(let feature):
                        layer.features.append(feature)
                        positions.append(featureNumber)
                    case .skipped(let kind, let message, let id):
                        warnings.append(error(kind, message, feature: featureNumber, id: id))
                    }
                    featureNumber += 1
                case 3:
                    try expect(.lengthDelimited, "key")
                    let (string, valid) = reader.string(try reader.readLengthDelimited())
                    if !valid { warnings.append(error(.invalidUTF8, "key \(layer.keys.count) is not valid UTF-8; bad bytes became U+FFFD")) }
                    layer.keys.append(string)
                case 4:
                    try expect(.lengthDelimited, "value")
                    let range = try reader.readLengthDelimited()
                    layer.values.append(try decodeValue(reader.reader(over: range), index: layer.values.count))
                case 5:
                    try expect(.varint, "extent")
                    extent = try reader.readVarint()
                case 15:
                    try expect(.varint, "version")
                    version = try reader.readVarint()
                default:
                    try reader.skip(wireType)
                }
            }
        } catch {
            throw placed(error)
        }

        guard sawName, !layer.name.isEmpty else {
            throw error(.unnamedLayer, sawName ? "the layer name is empty (MVT 4.1: a layer MUST have a name)" : "the layer has no name (MVT 4.1: a layer MUST have a name)")
        }
        guard let version else { throw error(.unsupportedVersion, "the layer has no version field (MVT 4.1: a layer MUST have one)") }
        guard version == 1 || version == 2 else {
            throw error(.unsupportedVersion, "version \(version) is not a Mapbox Vector Tile version this decoder reads (1 or 2)")
        }
        layer.version = UInt32(version)
        if let extent {
            guard extent > 0, extent <= UInt64(UInt32.max) else {
                throw error(.invalidExtent, "extent \(extent) is not a usable tile size (it must be 1 to 2^32-1; 4096 is usual)")
            }
            layer.extent = UInt32(extent)
        }
        layer.features = check(layer, positions: positions)
        return layer
    }

    /// The features whose tags point inside the key and value tables and, when checking
    /// geometry, whose geometry decodes; a warning for the rest.
    private mutating func check(_ layer: VectorTile.Layer, positions: [Int]) -> [VectorTile.Feature] {
        let keyCount = UInt32(clamping: layer.keys.count), valueCount = UInt32(clamping: layer.values.count)
        var dropped: [Int] = []
        for (i, feature) in layer.features.enumerated() {
            if let problem = VectorTile.problem(with: feature, keyCount: keyCount, valueCount: valueCount, checksGeometry: checksGeometry) {
                warnings.append(error(problem.kind, problem.message, feature: positions[i], id: feature.id))
                dropped.append(i)
            }
        }
        // Only a layer that lost features is copied.
        guard !dropped.isEmpty else { return layer.features }
        var kept: [VectorTile.Feature] = []
        kept.reserveCapacity(layer.features.count - dropped.count)
        var next = 0
        for (i, feature) in layer.features.enumerated() {
            if next < dropped.count && dropped[next] == i {
                next += 1
            } else {
                kept.append(feature)
            }
        }
        return kept
    }

    enum FeatureOutcome {
        case kept(VectorTile.Feature)
        case skipped(MVTError.Kind, String, id: UInt64?)
    }

    /// One `Tile.Feature` message; throws only for malformed protobuf.
    private func decodeFeature(_ feature: ProtobufReader) throws(MVTError) -> FeatureOutcome {
        var reader = feature
        var id: UInt64?
        var type: UInt64?
        var tags: [UInt32] = []
        var geometry: [UInt32] = []
        var sawTags = false, sawGeometry = false
        var problem: (kind: MVTError.Kind, message: String)?
        func note(_ kind: MVTError.Kind, _ message: String) {
            if problem == nil { problem = (kind, message) }
        }
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readKey()
            let expected: WireType
            switch field {
            case 1, 3: expected = .varint
            case 2, 4: expected = .lengthDelimited
            default:
                try reader.skip(wireType)
                continue
            }
            guard wireType == expected else {
                let name = ["", "id", "tags", "type", "geometry"][Int(field)]
                note(.invalidField, "its field \(field) (\(name)) has wire type \(wireType.name), not \(expected.name)")
                try reader.skip(wireType)
                continue
            }
            switch field {
            case 1:
                let value = try reader.readVarint()
                if id != nil { note(.invalidField, "it has two id fields") }
                id = value
            case 3:
                let value = try reader.readVarint()
                if type != nil { note(.invalidField, "it has two type fields") }
                type = value
            case 2:
                let range = try reader.readLengthDelimited()
                if sawTags { note(.invalidField, "it has two tags fields") }
                sawTags = true
                if !(try reader.readPackedUInt32(range, into: &tags)) { note(.invalidTags, "a tag does not fit 32 bits") }
            default:
                let range = try reader.readLengthDelimited()
                if sawGeometry { note(.invalidField, "it has two geometry fields (MVT 4.2: exactly one)") }
                sawGeometry = true
                if !(try reader.readPackedUInt32(range, into: &geometry)) { note(.invalidGeometry, "a geometry integer does not fit 32 bits") }
            }
        }
        if let problem { return .skipped(problem.kind, problem.message, id: id) }
        // No type field is UNKNOWN, the proto's default, which encoders leave out (016).
        let typeValue = type ?? 0
        guard let geometryType = VectorTile.GeometryType(rawValue: UInt32(clamping: typeValue)), typeValue <= 3 else {
            return .skipped(.unknownGeometryType, "its geometry type \(typeValue) is not UNKNOWN (0), POINT (1), LINESTRING (2) or POLYGON (3)", id: id)
        }
        guard sawGeometry else { return .skipped(.invalidGeometry, "it has no geometry field (MVT 4.2: a feature MUST have one)", id: id) }
        if tags.count % 2 != 0 {
            return .skipped(.invalidTags, "it has \(tags.count) tags; tags come in key-value pairs", id: id)
        }
        return .kept(VectorTile.Feature(id: id, tags: tags, type: geometryType, geometry: geometry))
    }

    /// One `Tile.Value` message: exactly one of its seven fields.
    private mutating func decodeValue(_ value: ProtobufReader, index: Int) throws(MVTError) -> VectorTile.Value {
        var reader = value
        var result: VectorTile.Value?
        do throws(MVTError) {
            while !reader.isAtEnd {
                let (field, wireType) = try reader.readKey()
                guard field >= 1 && field <= 7 else {
                    throw error(.invalidField, "value \(index) has field \(field), which MVT 2.1 does not define (a value holds one of string, float, double, int, uint, sint, bool)")
                }
                let expected: WireType = field == 1 ? .lengthDelimited : field == 2 ? .fixed32 : field == 3 ? .fixed64 : .varint
                guard wireType == expected else {
                    let name = ["", "string_value", "float_value", "double_value", "int_value", "uint_value", "sint_value", "bool_value"][Int(field)]
                    throw error(.invalidField, "value \(index) has its \(name) as wire type \(wireType.name), not \(expected.name)")
                }
                guard result == nil else {
                    throw error(.invalidValue, "value \(index) has more than one field (MVT 4.1: exactly one)")
                }
                switch field {
                case 1:
                    let (string, valid) = reader.string(try reader.readLengthDelimited())
                    result = .string(string)
                    if !valid { warnings.append(error(.invalidUTF8, "value \(index) is not valid UTF-8; bad bytes became U+FFFD")) }
                case 2: result = .float(Float(bitPattern: try reader.readFixed32()))
                case 3: result = .double(Double(bitPattern: try reader.readFixed64()))
                case 4: result = .int(Int64(bitPattern: try reader.readVarint()))
                case 5: result = .uint(try reader.readVarint())
                case 6: result = .sint(ProtobufReader.zigzag(try reader.readVarint()))
                default: result = .bool(try reader.readVarint() != 0)
                }
            }
        } catch {
            throw placed(error)
        }
        guard let result else { throw error(.invalidValue, "value \(index) is empty (MVT 4.1: it holds exactly one field)") }
        return result
    }
}
