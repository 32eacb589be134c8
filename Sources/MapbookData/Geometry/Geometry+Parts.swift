extension Geometry {
    /// The members of a geometry collection, nested collections opened; `[self]` for any
    /// other geometry.
    public var flattenedMembers: [Geometry] {
        guard case .geometryCollection(let members) = shape else { return [self] }
        return members.flatMap(\.flattenedMembers)
    }

    /// The parts of `family` among `parts` joined into one multi geometry; a single part is
    /// returned as it is. Parts of other families and empty points are left out.
    public static func joining(_ parts: [Geometry], as family: GeometryFamily, hasZ: Bool, hasM: Bool = false) -> Geometry {
        if parts.count == 1 { return parts[0] }
        switch family {
        case .point:
            return Geometry(.multiPoint(parts.flatMap { g -> [Position] in
                switch g.shape {
                case .point(let p): return p.x.isNaN ? [] : [p]
                case .multiPoint(let a): return a
                default: return []
                }
            }), hasZ: hasZ, hasM: hasM)
        case .line:
            return Geometry(.multiLineString(parts.flatMap { g -> [[Position]] in
                switch g.shape {
                case .lineString(let a): return [a]
                case .multiLineString(let r): return r
                default: return []
                }
            }), hasZ: hasZ, hasM: hasM)
        case .polygon:
            return Geometry(.multiPolygon(parts.flatMap { g -> [[[Position]]] in
                switch g.shape {
                case .polygon(let r): return [r]
                case .multiPolygon(let p): return p
                default: return []
                }
            }), hasZ: hasZ, hasM: hasM)
        }
    }

    /// The signed area of a ring (shoelace formula), positive when it runs counterclockwise.
    public static func signedArea(_ ring: [Position]) -> Double {
        guard ring.count >= 3, let origin = ring.first else { return 0 }
        var sum = 0.0
        for i in 0..<(ring.count - 1) {
            let a = ring[i], b = ring[i + 1]
            sum += (a.x - origin.x) * (b.y - origin.y) - (b.x - origin.x) * (a.y - origin.y)
        }
        return sum / 2
    }
}
