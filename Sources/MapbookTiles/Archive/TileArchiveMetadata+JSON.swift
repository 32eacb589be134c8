import MapbookSupport

extension TileArchiveMetadata {
    /// TileJSON 3.0 `vector_layers`: id, description, minzoom, maxzoom and fields per layer.
    public var vectorLayersJSON: JSONValue {
        .array(layers.map { layer in
            var o = JSONObject()
            o["id"] = .string(layer.id)
            o["description"] = .string(layer.description)
            o["minzoom"] = .int(layer.minZoom ?? minZoom)
            o["maxzoom"] = .int(layer.maxZoom ?? maxZoom)
            o["fields"] = .object(JSONObject(layer.fields.map { ($0.name, .string($0.type)) }))
            return .object(o)
        })
    }

    /// tippecanoe's `tilestats` for the layers whose geometry is known: GDAL's MVT driver takes
    /// a layer's geometry type from it instead of guessing from the first tiles.
    public var tileStatsJSON: JSONValue? {
        let known = layers.filter { $0.geometry != nil }
        guard !known.isEmpty else { return nil }
        return [
            "layerCount": .int(known.count),
            "layers": .array(known.map { layer in
                [
                    "layer": .string(layer.id),
                    "geometry": .string(layer.geometry!.rawValue),
                    "attributeCount": .int(layer.fields.count),
                    "attributes": .array(layer.fields.map { ["attribute": .string($0.name), "type": .string($0.type.lowercased())] }),
                ]
            }),
        ]
    }

    /// The JSON held in MBTiles' `json` row and PMTiles' metadata: `vector_layers`, and
    /// `tilestats` when geometry kinds are known.
    var layersDocument: JSONObject {
        var o = JSONObject()
        o["vector_layers"] = vectorLayersJSON
        if let stats = tileStatsJSON { o["tilestats"] = stats }
        return o
    }

    /// The MBTiles 1.3 `metadata` rows, also the keys of a tile directory's `metadata.json`
    /// (as tippecanoe writes them): every value a string.
    public var mbtilesRows: [(name: String, value: String)] {
        var rows: [(String, String)] = [
            ("name", name),
            ("format", format.rawValue),
            ("minzoom", String(minZoom)),
            ("maxzoom", String(maxZoom)),
        ]
        if let bounds {
            rows.append(("bounds", [bounds.minX, bounds.minY, bounds.maxX, bounds.maxY].map(Self.degrees).joined(separator: ",")))
        }
        if let center {
            rows.append(("center", "\(Self.degrees(center.longitude)),\(Self.degrees(center.latitude)),\(center.zoom)"))
        }
        rows.append(("description", description))
        rows.append(("attribution", attribution))
        rows.append(("type", "baselayer"))
        rows.append(("version", "1"))
        if format == .mvt {
            rows.append(("json", JSONWriter.string(.object(layersDocument), style: .compact)))
        }
        return rows
    }

    /// A degree value rounded to 1e-7, PMTiles' resolution, without float noise.
    static func degrees(_ value: Double) -> String {
        JSONWriter.formatNumber((value * 1e7).rounded() / 1e7)
    }

    /// Reads TileJSON `vector_layers`.
    public static func layers(fromVectorLayers value: JSONValue?) -> [VectorLayerInfo] {
        (value?.arrayValue ?? []).compactMap { item -> VectorLayerInfo? in
            guard let o = item.objectValue, let id = o.string("id") else { return nil }
            let fields = (o.object("fields") ?? JSONObject()).map { VectorLayerInfo.Field(name: $0.key, type: $0.value.stringValue ?? "String") }
            return VectorLayerInfo(id: id, description: o.string("description") ?? "", fields: fields, minZoom: o.int("minzoom"), maxZoom: o.int("maxzoom"))
        }
    }

    /// Adds the geometry kinds a tippecanoe `tilestats` object names to `layers`.
    static func applyTileStats(_ stats: JSONObject?, to layers: inout [VectorLayerInfo]) {
        for item in stats?.array("layers") ?? [] {
            guard let o = item.objectValue, let id = o.string("layer"), let geometry = o.string("geometry").flatMap(VectorLayerInfo.Geometry.init(rawValue:)) else { continue }
            if let i = layers.firstIndex(where: { $0.id == id }) { layers[i].geometry = geometry }
        }
    }
}
