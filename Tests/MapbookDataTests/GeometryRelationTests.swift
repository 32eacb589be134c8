import MapbookData
import Testing

/// `Geometry.intersects(_:)`, which a feature service's query by polygon or line uses: each
/// pair of families, touching, crossing, containing, and holes.
@Suite struct GeometryRelationTests {
    func g(_ wkt: String) throws -> Geometry { try WKT.parse(wkt) }

    @Test(arguments: [
        ("POINT (1 1)", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", true),
        ("POINT (3 3)", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", false),
        ("POINT (2 1)", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", true),  // on the edge
        ("POINT (1 1)", "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (0.5 0.5, 1.5 0.5, 1.5 1.5, 0.5 1.5, 0.5 0.5))", false),  // in the hole
        ("LINESTRING (-1 1, 3 1)", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", true),  // crosses, no vertex inside
        ("LINESTRING (-1 3, 3 3)", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", false),
        ("LINESTRING (0 0, 2 2)", "LINESTRING (0 2, 2 0)", true),
        ("LINESTRING (0 0, 1 1)", "LINESTRING (0 1, 1 2)", false),
        ("LINESTRING (0 0, 2 0)", "LINESTRING (1 0, 3 0)", true),  // overlapping, collinear
        ("POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", true),
        ("POLYGON ((0.5 0.5, 1 0.5, 1 1, 0.5 0.5))", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", true),  // inside
        ("POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))", "POLYGON ((1 1, 2 1, 2 2, 1 1))", true),  // around
        ("POLYGON ((3 0, 4 0, 4 1, 3 0))", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", false),
        ("MULTIPOINT ((5 5), (1 1))", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", true),
    ])
    func intersects(a: String, b: String, expected: Bool) throws {
        #expect(try g(a).intersects(try g(b)) == expected, "\(a) with \(b)")
        #expect(try g(b).intersects(try g(a)) == expected, "\(b) with \(a)")
    }
}
