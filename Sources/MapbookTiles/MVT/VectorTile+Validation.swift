extension VectorTile {
    /// The tile without the features a reader could not use, and a warning for each.
    ///
    /// Skips features whose tags come in odd numbers or point past their layer's key or value
    /// table, and features whose geometry does not decode (`Feature.decodeGeometry()`);
    /// features of type UNKNOWN, which have no geometry rules, are kept. `VectorTileDecoder`
    /// calls this when `checksGeometry` is on; call it on a tile decoded without it or built in
    /// memory. Does not look at layers: the decoder refuses bad ones.
    public func validated(source: String) -> Decoded {
        var result = Decoded(tile: self, warnings: [])
        for l in layers.indices {
            let layer = layers[l]
            let keyCount = UInt32(clamping: layer.keys.count), valueCount = UInt32(clamping: layer.values.count)
            var kept: [Feature] = []
            var dropped = false
            for (f, feature) in layer.features.enumerated() {
                if let problem = Self.problem(with: feature, keyCount: keyCount, valueCount: valueCount, checksGeometry: true) {
                    result.warnings.append(problem.located(source: source, layer: layer.name, feature: f, featureID: feature.id))
                    if !dropped {
                        kept = Array(layer.features[..<f])
                        dropped = true
                    }
                } else if dropped {
                    kept.append(feature)
                }
            }
            // Only a layer that lost features is copied.
            if dropped { result.tile.layers[l].features = kept }
        }
        return result
    }

    /// Why a feature cannot be used, or nil when it can.
    static func problem(with feature: Feature, keyCount: UInt32, valueCount: UInt32, checksGeometry: Bool) -> MVTError? {
        if let problem = tagProblem(feature.tags, keyCount: keyCount, valueCount: valueCount) {
            return MVTError(kind: .invalidTags, source: "", message: problem)
        }
        guard checksGeometry else { return nil }
        if feature.type == .unknown {
            // MVT 4.3.4 gives UNKNOWN no encoding, so its commands cannot be read as anything;
            // mvt-fixtures 016 leaves decoders free to use or refuse it. Without a geometry it
            // is only a row of attributes, and kept.
            guard feature.geometry.isEmpty else {
                return MVTError(kind: .unknownGeometryType, source: "", message: "its geometry type is UNKNOWN but it has a geometry, which MVT 2.1 gives no encoding (4.3.4)")
            }
            return nil
        }
        do throws(MVTError) {
            try feature.checkGeometry()
            return nil
        } catch {
            return error
        }
    }

    /// Why `tags` cannot be read against tables of these sizes, or nil when they can.
    static func tagProblem(_ tags: [UInt32], keyCount: UInt32, valueCount: UInt32) -> String? {
        if tags.count % 2 != 0 {
            return "it has \(tags.count) tags; tags come in key-value pairs"
        }
        var i = 0
        while i < tags.count {
            if tags[i] >= keyCount {
                return "tag \(i / 2) points to key \(tags[i]), but the layer has \(keyCount) key\(keyCount == 1 ? "" : "s")"
            }
            if tags[i + 1] >= valueCount {
                return "tag \(i / 2) points to value \(tags[i + 1]), but the layer has \(valueCount) value\(valueCount == 1 ? "" : "s")"
            }
            i += 2
        }
        return nil
    }
}
