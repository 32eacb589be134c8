/// A vector tile that cannot be read, or a part of one that was skipped.
///
/// The decoder throws it for a tile it refuses and returns it among `VectorTile.Decoded.warnings`
/// for a feature it skipped; either way it says where: the tile (`source`), the layer, and the
/// feature's position in its layer as encoded, e.g.
/// `tile.mvt: layer 'roads' feature 3 (id 42): LineTo count 1000000 runs past the end of the
/// geometry (12 integers left)`.
public struct MVTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The tile: a file name, or a name like `bundle R0000C0000 tile 14/8800/5370`. May be empty
    /// when the error comes from a geometry decoded on its own.
    public var source: String
    public var layer: String?
    /// The feature's index in its layer, counted over the features as they were encoded.
    public var feature: Int?
    public var featureID: UInt64?
    public var message: String

    public init(source: String, layer: String? = nil, feature: Int? = nil, featureID: UInt64? = nil, message: String) {
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
}
