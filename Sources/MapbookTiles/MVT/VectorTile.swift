/// A Mapbox Vector Tile 2.1 as it is on the wire: named layers, each with its key and value
/// tables and features whose tags and geometry commands index into them.
///
/// The model keeps the encoded forms (tags as key/value index pairs, geometry as command
/// integers) so that a tile decodes and re-encodes without loss, and so tests can compare a
/// decode with mvt-fixtures' `tile.json` field by field. `VectorTile+Geometry` turns command
/// integers into rings and lines and back.
public struct VectorTile: Sendable, Equatable {
    public var layers: [Layer]

    public init(layers: [Layer] = []) {
        self.layers = layers
    }

    public func layer(named name: String) -> Layer? { layers.first { $0.name == name } }
}

extension VectorTile {
    /// The geometry type of a feature (`Tile.GeomType` in the spec).
    public enum GeometryType: UInt32, Sendable, Equatable {
        case unknown = 0, point = 1, lineString = 2, polygon = 3
    }

    /// A value in a layer's value table. The spec stores integers three ways; the case says
    /// which field a decoded value came from, so it re-encodes to the same bytes.
    public enum Value: Sendable, Hashable {
        case string(String)
        case float(Float)
        case double(Double)
        case int(Int64)
        case uint(UInt64)
        case sint(Int64)
        case bool(Bool)
    }

    public struct Feature: Sendable, Equatable {
        public var id: UInt64?
        /// Pairs of indexes: key index, value index, key index, value index...
        public var tags: [UInt32]
        public var type: GeometryType
        /// Command integers: `MoveTo`/`LineTo`/`ClosePath` headers and zigzag parameters.
        public var geometry: [UInt32]

        public init(id: UInt64? = nil, tags: [UInt32] = [], type: GeometryType, geometry: [UInt32]) {
            self.id = id
            self.tags = tags
            self.type = type
            self.geometry = geometry
        }
    }

    public struct Layer: Sendable, Equatable {
        public var name: String
        public var version: UInt32
        /// The tile's width and height in layer units (we write 4096; Esri basemaps use 32768).
        public var extent: UInt32
        public var keys: [String]
        public var values: [Value]
        public var features: [Feature]

        public init(name: String, version: UInt32 = 2, extent: UInt32 = 4096, keys: [String] = [], values: [Value] = [], features: [Feature] = []) {
            self.name = name
            self.version = version
            self.extent = extent
            self.keys = keys
            self.values = values
            self.features = features
        }
    }
}
