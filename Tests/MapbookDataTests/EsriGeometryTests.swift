import Foundation
import MapbookData
import MapbookSupport
import MapbookTestSupport
import Testing

/// ArcGIS JSON geometries, as a feature service answers and takes them: round trips, the
/// rings' orientation, what is refused and why, and GDAL's ESRIJSON driver reading what we write.
@Suite struct EsriGeometryTests {
    static let square: [Position] = [.init(x: 0, y: 0), .init(x: 10, y: 0), .init(x: 10, y: 10), .init(x: 0, y: 10), .init(x: 0, y: 0)]
    static let hole: [Position] = [.init(x: 2, y: 2), .init(x: 2, y: 4), .init(x: 4, y: 4), .init(x: 4, y: 2), .init(x: 2, y: 2)]
    static let far: [Position] = [.init(x: 20, y: 0), .init(x: 25, y: 0), .init(x: 25, y: 5), .init(x: 20, y: 0)]

    static let samples: [Geometry] = [
        Geometry(.point(Position(x: -88.15, y: 41.75))),
        Geometry(.point(Position(x: 1, y: 2, z: 3, m: 4)), hasZ: true, hasM: true),
        Geometry(.multiPoint([Position(x: 1, y: 2), Position(x: 3, y: 4)])),
        Geometry(.lineString([Position(x: 0, y: 0, z: 5), Position(x: 1, y: 1, z: 6)]), hasZ: true),
        Geometry(.multiLineString([[Position(x: 0, y: 0), Position(x: 1, y: 1)], [Position(x: 2, y: 2), Position(x: 3, y: 5)]])),
        Geometry(.polygon([square, hole])),
        Geometry(.multiPolygon([[square, hole], [far]])),
    ]

    /// The same shape whatever the rings' direction: each ring as its set of corners.
    static func corners(_ g: Geometry) -> [[Set<[Double]>]] {
        func ring(_ r: [Position]) -> Set<[Double]> { Set(r.map { [$0.x, $0.y] }) }
        switch g.shape {
        case .polygon(let p): return [p.map(ring)]
        case .multiPolygon(let ps): return ps.map { $0.map(ring) }
        default: return []
        }
    }

    @Test(arguments: samples)
    func geometriesComeBackAsTheyWent(_ geometry: Geometry) throws {
        let json = geometry.esriJSON(spatialReference: ["wkid": 3857])
        let back = try Geometry(esriJSON: json)
        #expect(back.type == geometry.type && back.hasZ == geometry.hasZ && back.hasM == geometry.hasM)
        if geometry.type.family == .polygon {
            #expect(Self.corners(back) == Self.corners(geometry))
        } else {
            #expect(back == geometry, "\(json)")
        }
        #expect(json.objectValue?["spatialReference"]?.objectValue?["wkid"]?.intValue == 3857)
    }

    /// Exterior rings run clockwise and holes counter-clockwise, whichever way they came.
    @Test func ringsAreWrittenClockwiseWithHolesTheOtherWay() throws {
        let json = Geometry(.polygon([Self.square, Self.hole])).esriJSON()
        let rings = try #require(json.objectValue?["rings"]?.arrayValue).map { ring in
            (ring.arrayValue ?? []).map { Position(x: $0.arrayValue?[0].doubleValue ?? 0, y: $0.arrayValue?[1].doubleValue ?? 0) }
        }
        #expect(Geometry.signedArea(rings[0]) < 0 && Geometry.signedArea(rings[1]) > 0)
        let reversed = Geometry(.polygon([Self.square.reversed(), Self.hole.reversed()])).esriJSON()
        #expect(reversed == json)
    }

    @Test func unclosedRingsAreClosedAndEmptyPointsRead() throws {
        let open = try Geometry(esriJSON: ["rings": [[[0, 0], [0, 10], [10, 10], [10, 0]]]])
        guard case .polygon(let rings) = open.shape else { Issue.record("\(open)"); return }
        #expect(rings[0].count == 5 && rings[0].first == rings[0].last)
        #expect(try Geometry(esriJSON: ["x": .null, "y": .null]).isEmpty)
    }

    static let refused: [(JSONValue, EsriGeometryError.Kind)] = [
        (.array([]), .notAGeometry),
        (["spatialReference": ["wkid": 4326]], .notAGeometry),
        (["x": "one", "y": 2], .invalidCoordinate),
        (["x": 1], .invalidCoordinate),
        (["paths": [[[0, 0]]]], .tooFewPositions),
        (["paths": [[[0, "a"], [1, 1]]]], .invalidCoordinate),
        (["rings": [[[0, 0], [1, 1], [0, 0]]]], .tooFewPositions),
        (["curveRings": [[[0, 0], ["c": [[1, 1], [2, 0]]]]]], .curves),
    ]

    @Test(arguments: refused)
    func badGeometriesAreRefusedWithTheirKind(_ json: JSONValue, _ kind: EsriGeometryError.Kind) {
        #expect(throws: EsriGeometryError.self) { try Geometry(esriJSON: json) }
        do { _ = try Geometry(esriJSON: json) } catch { #expect(error.kind == kind, "\(error)") }
    }

    @Test func aLayerTakesOnlyItsOwnFamily() {
        do {
            _ = try Geometry(esriJSON: ["paths": [[[0, 0], [1, 1]]]], family: .point)
            Issue.record("a polyline was taken for a point layer")
        } catch {
            #expect(error.kind == .wrongType && error.message.contains("esriGeometryPoint"))
        }
        #expect((try? Geometry(esriJSON: ["points": [[0, 0]]], family: .point)) != nil, "multipoints go in point layers")
    }

    /// GDAL's ESRIJSON driver (what QGIS reads feature services with) reads the FeatureSet
    /// we write as the same geometries.
    @Test(ExternalTools.ogrinfoRequired)
    func gdalReadsWhatWeWrite() throws {
        try withTemporaryDirectory { dir in
            for (i, geometry) in Self.samples.enumerated() where geometry.type != .point || i == 0 {
                let family = geometry.type.family ?? .point
                let set: JSONValue = [
                    "geometryType": .string(geometry.type == .multiPoint ? "esriGeometryMultipoint" : family.esriGeometryType),
                    "spatialReference": ["wkid": 4326], "fields": [["name": "id", "type": "esriFieldTypeOID", "alias": "id"]],
                    "features": [["attributes": ["id": 1], "geometry": geometry.esriJSON()]],
                ]
                let path = dir + "/g\(i).json"
                try Data(JSONWriter.bytes(set, style: .compact)).write(to: URL(fileURLWithPath: path))
                let (status, output) = try ExternalTools.run(ExternalTools.ogrinfo, ["-ro", "-al", "-q", "-geom=ISO_WKT", path])
                #expect(status == 0, "\(output)")
                let wktLine = try #require(output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first {
                    $0.hasPrefix("POINT") || $0.hasPrefix("MULTI") || $0.hasPrefix("LINESTRING") || $0.hasPrefix("POLYGON")
                }, "\(output)")
                let read = try WKT.parse(wktLine)
                if family == .polygon {
                    #expect(Self.corners(read) == Self.corners(geometry), "\(wktLine)")
                } else {
                    #expect(read.type == geometry.type || (read.type == .multiLineString && geometry.type == .lineString), "\(wktLine)")
                    var ours: [[Double]] = [], theirs: [[Double]] = []
                    geometry.forEachPosition { ours.append([$0.x, $0.y]) }
                    read.forEachPosition { theirs.append([$0.x, $0.y]) }
                    #expect(ours == theirs, "\(wktLine)")
                }
            }
        }
    }
}
