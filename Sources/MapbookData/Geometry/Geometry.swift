import MapbookSupport

/// A coordinate: x (easting or longitude), y (northing or latitude), and optional z and m.
///
/// Absent z or m are NaN; whether a geometry carries them is said once, by `Geometry.hasZ`
/// and `Geometry.hasM`, as in ISO WKB.
public struct Position: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    public var m: Double

    public init(x: Double, y: Double, z: Double = .nan, m: Double = .nan) {
        self.x = x
        self.y = y
        self.z = z
        self.m = m
    }

    public static func == (a: Position, b: Position) -> Bool {
        a.x == b.x && a.y == b.y && (a.z == b.z || (a.z.isNaN && b.z.isNaN)) && (a.m == b.m || (a.m.isNaN && b.m.isNaN))
    }
}

/// The geometry types of the OGC Simple Features model that GeoPackage and WKB name.
public enum GeometryType: Int, Sendable, CaseIterable {
    case geometry = 0, point = 1, lineString = 2, polygon = 3
    case multiPoint = 4, multiLineString = 5, multiPolygon = 6, geometryCollection = 7

    /// The name used in `gpkg_geometry_columns` and in column declarations.
    public var gpkgName: String {
        switch self {
        case .geometry: return "GEOMETRY"
        case .point: return "POINT"
        case .lineString: return "LINESTRING"
        case .polygon: return "POLYGON"
        case .multiPoint: return "MULTIPOINT"
        case .multiLineString: return "MULTILINESTRING"
        case .multiPolygon: return "MULTIPOLYGON"
        case .geometryCollection: return "GEOMETRYCOLLECTION"
        }
    }

    public init?(gpkgName: String) {
        guard let match = Self.allCases.first(where: { $0.gpkgName == gpkgName.uppercased() }) else { return nil }
        self = match
    }

    /// Points, lines or polygons: what a layer can be drawn and queried as.
    public var family: GeometryFamily? {
        switch self {
        case .point, .multiPoint: return .point
        case .lineString, .multiLineString: return .line
        case .polygon, .multiPolygon: return .polygon
        case .geometry, .geometryCollection: return nil
        }
    }

    public var isMulti: Bool { self == .multiPoint || self == .multiLineString || self == .multiPolygon }
}

/// The dimension of a layer's features; a layer holds one family.
public enum GeometryFamily: String, Sendable {
    case point, line, polygon

    public func type(multi: Bool) -> GeometryType {
        switch self {
        case .point: return multi ? .multiPoint : .point
        case .line: return multi ? .multiLineString : .lineString
        case .polygon: return multi ? .multiPolygon : .polygon
        }
    }

    /// The Esri geometry type a web map's feature layer declares.
    public var esriGeometryType: String {
        switch self {
        case .point: return "esriGeometryPoint"
        case .line: return "esriGeometryPolyline"
        case .polygon: return "esriGeometryPolygon"
        }
    }
}

/// A Simple Features geometry. Rings are closed (first position repeated last); polygons list
/// their exterior ring first. Empty geometries have no positions (an empty point is NaN, NaN).
public struct Geometry: Sendable, Equatable {
    public enum Shape: Sendable, Equatable {
        case point(Position)
        case lineString([Position])
        case polygon([[Position]])
        case multiPoint([Position])
        case multiLineString([[Position]])
        case multiPolygon([[[Position]]])
        case geometryCollection([Geometry])
    }

    public var shape: Shape
    public var hasZ: Bool
    public var hasM: Bool

    public init(_ shape: Shape, hasZ: Bool = false, hasM: Bool = false) {
        self.shape = shape
        self.hasZ = hasZ
        self.hasM = hasM
    }

    public var type: GeometryType {
        switch shape {
        case .point: return .point
        case .lineString: return .lineString
        case .polygon: return .polygon
        case .multiPoint: return .multiPoint
        case .multiLineString: return .multiLineString
        case .multiPolygon: return .multiPolygon
        case .geometryCollection: return .geometryCollection
        }
    }

    public var isEmpty: Bool {
        switch shape {
        case .point(let p): return p.x.isNaN || p.y.isNaN
        case .lineString(let a), .multiPoint(let a): return a.isEmpty
        case .polygon(let r), .multiLineString(let r): return r.allSatisfy(\.isEmpty)
        case .multiPolygon(let p): return p.allSatisfy { $0.allSatisfy(\.isEmpty) }
        case .geometryCollection(let g): return g.allSatisfy(\.isEmpty)
        }
    }

    /// The number of positions, for size estimates and simplification budgets.
    public var positionCount: Int {
        switch shape {
        case .point: return 1
        case .lineString(let a), .multiPoint(let a): return a.count
        case .polygon(let r), .multiLineString(let r): return r.reduce(0) { $0 + $1.count }
        case .multiPolygon(let p): return p.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
        case .geometryCollection(let g): return g.reduce(0) { $0 + $1.positionCount }
        }
    }

    /// Calls `body` on every position, in order.
    public func forEachPosition(_ body: (Position) -> Void) {
        switch shape {
        case .point(let p): body(p)
        case .lineString(let a), .multiPoint(let a): a.forEach(body)
        case .polygon(let r), .multiLineString(let r): r.forEach { $0.forEach(body) }
        case .multiPolygon(let p): p.forEach { $0.forEach { $0.forEach(body) } }
        case .geometryCollection(let g): g.forEach { $0.forEachPosition(body) }
        }
    }

    /// A copy with every position replaced by `transform(position)`.
    public func mapPositions(_ transform: (Position) -> Position) -> Geometry {
        func ring(_ a: [Position]) -> [Position] { a.map(transform) }
        let mapped: Shape
        switch shape {
        case .point(let p): mapped = .point(p.x.isNaN ? p : transform(p))
        case .lineString(let a): mapped = .lineString(ring(a))
        case .multiPoint(let a): mapped = .multiPoint(ring(a))
        case .polygon(let r): mapped = .polygon(r.map(ring))
        case .multiLineString(let r): mapped = .multiLineString(r.map(ring))
        case .multiPolygon(let p): mapped = .multiPolygon(p.map { $0.map(ring) })
        case .geometryCollection(let g): mapped = .geometryCollection(g.map { $0.mapPositions(transform) })
        }
        return Geometry(mapped, hasZ: hasZ, hasM: hasM)
    }

    /// The bounding box of the positions, or nil when the geometry is empty.
    public var envelope: BoundingBox? {
        var box = BoundingBox.empty
        forEachPosition { p in
            if !p.x.isNaN && !p.y.isNaN { box.include(x: p.x, y: p.y) }
        }
        return box.isEmpty ? nil : box
    }

    /// This geometry as the multi type of its family (a polygon becomes a one-part
    /// multipolygon); multi types and collections are returned unchanged.
    public func promotedToMulti() -> Geometry {
        switch shape {
        case .point(let p): return Geometry(.multiPoint(p.x.isNaN ? [] : [p]), hasZ: hasZ, hasM: hasM)
        case .lineString(let a): return Geometry(.multiLineString(a.isEmpty ? [] : [a]), hasZ: hasZ, hasM: hasM)
        case .polygon(let r): return Geometry(.multiPolygon(r.isEmpty ? [] : [r]), hasZ: hasZ, hasM: hasM)
        default: return self
        }
    }

    /// The same geometry with z and m dropped or kept as the layer declares.
    public func withDimensions(z: Bool, m: Bool) -> Geometry {
        if hasZ == z && hasM == m { return self }
        var copy = mapPositions { p in
            Position(x: p.x, y: p.y, z: z ? (p.z.isNaN ? 0 : p.z) : .nan, m: m ? p.m : .nan)
        }
        copy.hasZ = z
        copy.hasM = m
        return copy
    }
}
