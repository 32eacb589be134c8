/// An ArcGIS REST geometry (JSON) that `Geometry(esriJSON:)` refuses, saying what is wrong
/// and what to send instead.
public struct EsriGeometryError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Not a JSON object, or an object with none of x, points, paths or rings.
        case notAGeometry
        /// A geometry of another type than the one expected (a polyline for a point layer).
        case wrongType
        /// A coordinate that is not a finite number, or a position with fewer than two.
        case invalidCoordinate
        /// A path with fewer than two positions, a ring with fewer than four once closed.
        case tooFewPositions
        /// True curves (`curvePaths`, `curveRings`): their arcs and Béziers are not densified here.
        case curves
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
