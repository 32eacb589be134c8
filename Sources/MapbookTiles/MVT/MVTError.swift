/// A vector tile that cannot be read, or a part of one that was skipped.
///
/// The decoder throws it for a tile it refuses and returns it among `VectorTile.Decoded.warnings`
/// for a feature it skipped; either way it says where: the tile (`source`), the layer, and the
/// feature's position in its layer as encoded, e.g.
/// `tile.mvt: layer 'roads' feature 3 (id 42): LineTo count 1000000 runs past the end of the
/// geometry (12 integers left)`.
public struct MVTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// The gzip data is damaged, or zlib cannot inflate it.
        case damagedGzip
        /// The gzip data ends early.
        case truncatedGzip
        /// Bytes that are not gzip follow the gzip data.
        case trailingData
        /// The tile inflates past the limit for one tile.
        case decompressionBomb
        /// The tile's file is larger than any tile may be.
        case tooLarge
        /// Bytes that are not well-formed protobuf.
        case invalidProtobuf
        /// A field of the tile, a layer or a value has the wrong wire type or is not defined.
        case invalidField
        /// A layer without a name, or with an empty one.
        case unnamedLayer
        /// Two layers of the same name.
        case duplicateLayerName
        /// A layer without a version, or of a version other than 1 or 2.
        case unsupportedVersion
        /// A layer's extent is 0 or too large.
        case invalidExtent
        /// A value with no field or more than one.
        case invalidValue
        /// A name, key or string value that is not UTF-8 (a warning: bad bytes are replaced).
        case invalidUTF8
        /// Tags in odd numbers or pointing past the layer's key or value table.
        case invalidTags
        /// A geometry of type UNKNOWN, which has no defined encoding.
        case unknownGeometryType
        /// A geometry's commands break MVT 4.3: a wrong command, count or ring.
        case invalidGeometry
        /// A polygon none of whose rings has an area (all collapsed to a line or a point, as
        /// real basemaps have at low zooms). Readers skip it, as MapLibre and GDAL do: it draws
        /// nothing, so it is not an error of the tile.
        case degeneratePolygon
    }

    public var kind: Kind
    /// The tile: a file name, or a name like `bundle R0000C0000 tile 14/8800/5370`. May be empty
    /// when the error comes from a geometry decoded on its own.
    public var source: String
    public var layer: String?
    /// The feature's index in its layer, counted over the features as they were encoded.
    public var feature: Int?
    public var featureID: UInt64?
    public var message: String

    public init(kind: Kind, source: String, layer: String? = nil, feature: Int? = nil, featureID: UInt64? = nil, message: String) {
        self.kind = kind
        self.source = source
        self.layer = layer
        self.feature = feature
        self.featureID = featureID
        self.message = message
    }

    public var description: String {
        var place: [String] = []
        if !source.isEmpty { place.append(source + ":") }
        if let layer { place.append("layer '\(layer)'" + (feature == nil ? ":" : "")) }
        if let feature {
            place.append("feature \(feature)" + (featureID.map { " (id \($0))" } ?? "") + ":")
        }
        place.append(message)
        return place.joined(separator: " ")
    }

    /// The same error placed in a tile, layer and feature; fields already set are kept.
    public func located(source: String? = nil, layer: String? = nil, feature: Int? = nil, featureID: UInt64? = nil) -> MVTError {
        var copy = self
        if copy.source.isEmpty, let source { copy.source = source }
        if copy.layer == nil { copy.layer = layer }
        if copy.feature == nil { copy.feature = feature }
        if copy.featureID == nil { copy.featureID = featureID }
        return copy
    }

    /// One line for a tile's problems: the first, and how many more there are; nil for none.
    public static func summary(_ problems: [MVTError]) -> String? {
        guard let first = problems.first else { return nil }
        return "\(first)" + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "")
    }
}
