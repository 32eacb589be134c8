/// Builds one MVT layer feature by feature, sharing keys and values in the layer's tables.
///
/// Keys and values are looked up in dictionaries, so each distinct one is stored once however
/// many features use it (MVT 2.1 section 4.4); a value keeps its case, so `.int(1)` and
/// `.uint(1)` stay distinct. Geometry is encoded as it is added (see
/// `VectorTile.Feature.init(id:tags:geometry:)`), and nothing is copied at `build()` beyond
/// the layer itself.
public struct VectorTileLayerBuilder: Sendable {
    private var layer: VectorTile.Layer
    private var keyIndex: [String: UInt32] = [:]
    private var valueIndex: [VectorTile.Value: UInt32] = [:]

    /// A builder for a version 2 layer called `name`, `extent` units wide.
    public init(name: String, extent: UInt32 = 4096) {
        layer = VectorTile.Layer(name: name, version: 2, extent: extent)
    }

    public var featureCount: Int { layer.features.count }
    public var isEmpty: Bool { layer.features.isEmpty }

    /// Adds a feature; returns false, adding nothing, when its geometry encodes to nothing
    /// (empty, or every part collapsed).
    ///
    /// When a key appears more than once in `attributes`, the first value is kept: a feature's
    /// tags name each key once.
    @discardableResult
    public mutating func add(id: UInt64?, attributes: [(key: String, value: VectorTile.Value)], geometry: TileGeometry) -> Bool {
        var feature = VectorTile.Feature(id: id, geometry: geometry)
        guard !feature.geometry.isEmpty else { return false }
        var tags: [UInt32] = []
        tags.reserveCapacity(attributes.count * 2)
        for (key, value) in attributes {
            let k = index(ofKey: key)
            if attributes.count > 1 && containsKey(k, in: tags) { continue }
            tags.append(k)
            tags.append(index(ofValue: value))
        }
        feature.tags = tags
        layer.features.append(feature)
        return true
    }

    /// The layer built so far.
    public func build() -> VectorTile.Layer {
        layer
    }

    private mutating func index(ofKey key: String) -> UInt32 {
        if let i = keyIndex[key] { return i }
        let i = UInt32(layer.keys.count)
        keyIndex[key] = i
        layer.keys.append(key)
        return i
    }

    /// NaN, never equal to itself, gets an entry each time; -0.0 shares 0.0's, as they compare equal.
    private mutating func index(ofValue value: VectorTile.Value) -> UInt32 {
        if let i = valueIndex[value] { return i }
        let i = UInt32(layer.values.count)
        valueIndex[value] = i
        layer.values.append(value)
        return i
    }

    /// A linear scan: features carry few attributes, so it beats hashing.
    private func containsKey(_ key: UInt32, in tags: [UInt32]) -> Bool {
        var i = 0
        while i < tags.count {
            if tags[i] == key { return true }
            i += 2
        }
        return false
    }
}
