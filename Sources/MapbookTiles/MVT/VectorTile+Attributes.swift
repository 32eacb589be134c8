extension VectorTile.Layer {
    /// A feature's attributes as key-value pairs, in tag order; tags that point past the
    /// tables are left out.
    public func attributes(of feature: VectorTile.Feature) -> [(key: String, value: VectorTile.Value)] {
        var result: [(key: String, value: VectorTile.Value)] = []
        result.reserveCapacity(feature.tags.count / 2)
        var i = 0
        while i + 1 < feature.tags.count {
            let k = Int(feature.tags[i]), v = Int(feature.tags[i + 1])
            if k < keys.count && v < values.count { result.append((keys[k], values[v])) }
            i += 2
        }
        return result
    }
}
