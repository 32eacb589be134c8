import MapbookPackage

@testable import MapbookTiles
import MapbookSupport

/// Small, valid Mapbox Vector Tiles encoded by hand for the archive tests, independent of the
/// MVT codec: every tile holds a `parcels` polygon, a `roads` line and a `poi` point.
enum TestTiles {
    static let layers: [VectorLayerInfo] = [
        VectorLayerInfo(id: "parcels", fields: [.init(name: "kind", type: "String")], minZoom: 0, maxZoom: 14, geometry: .polygon),
        VectorLayerInfo(id: "roads", fields: [.init(name: "class", type: "String")], minZoom: 0, maxZoom: 14, geometry: .line),
        VectorLayerInfo(id: "poi", fields: [.init(name: "name", type: "String")], minZoom: 0, maxZoom: 14, geometry: .point),
    ]

    /// The uncompressed MVT bytes of the test tile for `coordinate`.
    static func mvt(_ coordinate: TileCoordinate) -> [UInt8] {
        let label = "\(coordinate.z)-\(coordinate.x)-\(coordinate.y)"
        var tile: [UInt8] = []
        // A square in the middle (MoveTo, LineTo x3, ClosePath), clockwise in tile coordinates.
        tile += field(3, layer("parcels", key: "kind", value: coordinate.x % 2 == 0 ? "park" : "lot", type: 3,
            geometry: [9, zigzag(1024), zigzag(1024), 26, zigzag(2048), 0, 0, zigzag(2048), zigzag(-2048), 0, 15]))
        tile += field(3, layer("roads", key: "class", value: "local", type: 2,
            geometry: [9, zigzag(0), zigzag(0), 10, zigzag(4096), zigzag(4096)]))
        tile += field(3, layer("poi", key: "name", value: label, type: 1, geometry: [9, zigzag(100), zigzag(200)]))
        return tile
    }

    /// The gzip-compressed test tile, as archives store it.
    static func gzipped(_ coordinate: TileCoordinate) -> [UInt8] { Gzip.compress(mvt(coordinate)) }

    /// Every tile from `minZoom` to `maxZoom` that covers the area around Naperville, IL.
    static func coordinates(minZoom: Int, maxZoom: Int) -> [TileCoordinate] {
        var out: [TileCoordinate] = []
        for z in minZoom...maxZoom {
            let (x0, y0) = tile(longitude: -88.25, latitude: 41.85, zoom: z)
            let (x1, y1) = tile(longitude: -88.05, latitude: 41.70, zoom: z)
            for x in x0...x1 { for y in y0...y1 { out.append(TileCoordinate(z: z, x: x, y: y)) } }
        }
        return out
    }

    static func tile(longitude: Double, latitude: Double, zoom: Int) -> (Int, Int) {
        let (mx, my) = WebMercator.project(longitude: longitude, latitude: latitude)
        let n = Double(1 << zoom)
        let x = Int(((mx + WebMercator.halfWorld) / (2 * WebMercator.halfWorld) * n).rounded(.down))
        let y = Int(((WebMercator.halfWorld - my) / (2 * WebMercator.halfWorld) * n).rounded(.down))
        return (x, y)
    }

    static func layer(_ name: String, key: String, value: String, type: UInt32, geometry: [UInt32]) -> [UInt8] {
        var feature: [UInt8] = []
        feature += varintField(1, 1)  // id
        feature += field(2, packed([0, 0]))  // tags: key 0, value 0
        feature += varintField(3, UInt64(type))
        feature += field(4, packed(geometry))
        var out: [UInt8] = []
        out += varintField(15, 2)  // version
        out += field(1, Array(name.utf8))
        out += field(2, feature)
        out += field(3, Array(key.utf8))
        out += field(4, field(1, Array(value.utf8)))  // Value.string_value
        out += varintField(5, 4096)  // extent
        return out
    }

    static func zigzag(_ v: Int32) -> UInt32 { UInt32(bitPattern: (v << 1) ^ (v >> 31)) }

    static func varint(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        Varint.append(value, to: &out)
        return out
    }

    static func varintField(_ number: UInt64, _ value: UInt64) -> [UInt8] { varint(number << 3) + varint(value) }
    static func field(_ number: UInt64, _ bytes: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes }
    static func packed(_ values: [UInt32]) -> [UInt8] { values.flatMap { varint(UInt64($0)) } }

    /// A description of a package of the test tiles between `minLOD` and `maxLOD`.
    static func description(minLOD: Int, maxLOD: Int, name: String = "Test Backdrop") -> VectorTilePackageDescription {
        let extent = WebMercator.project(BoundingBox(minX: -88.25, minY: 41.70, maxX: -88.05, maxY: 41.85))
        let style: JSONObject = [
            "version": 8, "name": .string(name),
            "sources": ["esri": ["type": "vector", "url": "../../"]],
            "layers": [
                ["id": "background", "type": "background", "paint": ["background-color": "#f2efe9"]],
                ["id": "parcels", "type": "fill", "source": "esri", "source-layer": "parcels", "paint": ["fill-color": "#cfe3bd"]],
                ["id": "roads", "type": "line", "source": "esri", "source-layer": "roads", "paint": ["line-color": "#888888"]],
                ["id": "poi", "type": "circle", "source": "esri", "source-layer": "poi", "paint": ["circle-color": "#d55e00"]],
            ],
        ]
        var description = VectorTilePackageDescription(
            name: name, layers: layers, fullExtent: extent, minLOD: minLOD, maxLOD: maxLOD, style: style, timestamp: 1_795_305_600)
        description.title = "Test Backdrop"
        description.summary = "Tiles made by the archive tests"
        description.credits = "Mapbook tests"
        description.tags = ["test", "backdrop"]
        return description
    }

    /// Writes a package of the test tiles between the two levels, tiles added in `order`.
    @discardableResult
    static func writePackage(
        at path: String, minLOD: Int = 8, maxLOD: Int = 12, thumbnail: [UInt8]? = nil, shuffledWith seed: UInt64? = nil
    ) throws -> (writer: VectorTilePackageWriter, tiles: [TileCoordinate]) {
        var description = description(minLOD: minLOD, maxLOD: maxLOD)
        description.thumbnail = thumbnail
        let writer = try VectorTilePackageWriter(path: path, description: description)
        var tiles = coordinates(minZoom: minLOD, maxZoom: maxLOD)
        if let seed {
            var generator = SeededGenerator(state: seed)
            tiles.shuffle(using: &generator)
        }
        for c in tiles { try writer.addTile(gzipped(c), at: c) }
        try writer.finish()
        return (writer, tiles.sorted())
    }
}

/// A deterministic random number generator (SplitMix64) for shuffles.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
