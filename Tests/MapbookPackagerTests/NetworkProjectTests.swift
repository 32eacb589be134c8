import Foundation
import MapbookInspection
import MapbookPackage
import MapbookPackager
import MapbookRouting
import MapbookTestSupport
import Testing

/// `network:` in a project: what create builds, and the bad input it refuses with nothing
/// written.
@Suite struct NetworkProjectTests {
    /// Streets as GeoJSON: two blocks of Main St (one-way with the line), Elm St across them,
    /// and whatever `extra` features are given.
    func streets(_ dir: String, oneway: [String] = ["FT", "FT", "B"], extra: String = "") throws {
        func line(_ name: String, _ oneway: String, _ coordinates: String) -> String {
            #"{"type":"Feature","properties":{"name":"\#(name)","oneway":"\#(oneway)","speed":30},"geometry":{"type":"LineString","coordinates":\#(coordinates)}}"#
        }
        let features = [
            line("Main St", oneway[0], "[[-88.150,41.750],[-88.150,41.751]]"),
            line("Main St", oneway[1], "[[-88.150,41.751],[-88.150,41.752]]"),
            line("Elm St", oneway[2], "[[-88.151,41.751],[-88.150,41.751],[-88.149,41.751]]"),
        ] + (extra.isEmpty ? [] : [extra])
        try writeFile(dir + "/streets.geojson", #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}")
        try writeFile(dir + "/places.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"A"},"geometry":{"type":"Point","coordinates":[-88.15,41.75]}}]}"#)
    }

    func project(_ dir: String, network: String) throws -> Project {
        try writeFile(dir + "/project.yaml", """
            title: Network Town
            sources:
              streets: { path: streets.geojson }
              places: { path: places.geojson }
            network: \(network)
            maps:
              - name: Streets
                layers: [streets]
            """)
        return try Project.load(path: dir + "/project.yaml")
    }

    @Test func createBuildsTheNetworkAndReportsIt() throws {
        try withTemporaryDirectory { dir in
            try streets(dir)
            let summary = try Packager.build(try project(dir, network: "{ source: streets, oneway: oneway, speed: speed }"), output: dir + "/n.mmpk", timestamp: 1_795_305_600)
            let report = try #require(summary.network)
            // Elm St is cut where Main St meets it (a shared vertex): 4 edges, 5 nodes.
            #expect(report.edges == 4 && report.nodes == 5 && report.components == 1, "\(report)")
            #expect(report.entry == "p20/network/Streets.mnet")
            let network = try RoutingNetwork.open(try MobileMapPackage(path: dir + "/n.mmpk"))
            #expect(network.edgeCount == 4)
            let router = Router(network: network)
            // North on Main St is direct; south is refused (one-way, and no other way round).
            let north = try router.route([StreetNetwork.Node(lon: -88.15, lat: 41.7502), StreetNetwork.Node(lon: -88.15, lat: 41.7518)], by: .distance)
            #expect(abs(north.metres - 177.9) < 1, "\(north.metres)")
            #expect(throws: RoutingError.self) {
                _ = try router.route([StreetNetwork.Node(lon: -88.15, lat: 41.7518), StreetNetwork.Node(lon: -88.15, lat: 41.7502)], by: .distance)
            }
        }
    }

    /// A network whose hierarchy runs past the project's time limit stops the build with the
    /// settings that avoid it; the limit is read from the project.
    @Test func aHierarchyPastItsTimeLimitStopsTheBuildNamingTheSettings() throws {
        try withTemporaryDirectory { dir in
            try streets(dir)
            let project = try project(dir, network: "{ source: streets, speed: speed, time_limit: 0.000001 }")
            #expect(project.network?.timeLimit == 0.000001)
            // The limit (60 µs from when the network's source is read) passes before its first
            // node is contracted.
            #expect {
                _ = try Packager.build(project, output: dir + "/n.mmpk")
            } throws: { error in
                guard let error = error as? ProjectError, error.kind == .timeLimit else { return false }
                return error.message.contains("`metrics: [distance]`") && error.message.contains("time_limit")
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/n.mmpk"))
        }
    }

    /// A street apart from the rest is built, with a warning that names it and where it is.
    @Test func aStreetCutOffFromTheRestIsWarnedOf() throws {
        try withTemporaryDirectory { dir in
            try streets(dir, extra: #"{"type":"Feature","properties":{"name":"Lonely Ln","oneway":"B","speed":30},"geometry":{"type":"LineString","coordinates":[[-88.140,41.760],[-88.139,41.760]]}}"#)
            let summary = try Packager.build(try project(dir, network: "{ source: streets, oneway: oneway }"), output: dir + "/n.mmpk", timestamp: 1_795_305_600)
            #expect(summary.network?.components == 2)
            #expect(summary.warnings.contains { $0.contains("Lonely Ln") && $0.contains("-88.14,41.76") && $0.contains("cut off") }, "\(summary.warnings)")
        }
    }

    @Test func refusesWhatCannotMakeANetworkAndWritesNothing() throws {
        try withTemporaryDirectory { dir in
            try streets(dir, oneway: ["FT", "sideways", "sideways"])
            func refusal(_ network: String) -> ProjectError? {
                projectRefusal { _ = try Packager.build(try project(dir, network: network), output: dir + "/n.mmpk", timestamp: 1_795_305_600) }
            }
            // Points are not streets.
            let points = refusal("{ source: places }")
            #expect(points?.kind == .invalidValue && points?.message.contains("'places' holds points") == true, "\(String(describing: points))")
            // Oneway values it cannot read: each with its count, and the field named.
            let oneway = refusal("{ source: streets, oneway: oneway }")
            #expect(oneway?.kind == .invalidValue, "\(String(describing: oneway))")
            #expect(oneway?.message.contains("oneway 'oneway': 'sideways' (2 lines)") == true, "\(String(describing: oneway))")
            // A field the layer does not have.
            let missing = refusal("{ source: streets, oneway: ONEWAY }")
            #expect(missing?.kind == .noSuchColumn && missing?.message.contains("did you mean 'oneway'") == true, "\(String(describing: missing))")
            // A restrictions table that is not there.
            let restrictions = refusal("{ source: streets, restrictions: turns.csv }")
            #expect(restrictions?.kind == .data(.file(.io(errno: ENOENT))), "\(String(describing: restrictions))")
            #expect(!FileManager.default.fileExists(atPath: dir + "/n.mmpk"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).allSatisfy { !$0.hasPrefix(".") }, "work files left behind")
        }
    }

    /// A no-turn from Main St onto Elm St: the route that needed it is refused, the turn
    /// the other way is still taken, and `validate` checks the network with its turns.
    @Test func turnRestrictionsFromATableAreObeyed() throws {
        try withTemporaryDirectory { dir in
            try streets(dir)
            try writeFile(dir + "/turns.csv", "street,onto,note\nMain St,Elm St,no turn from Main St\n")
            let network = "{ source: streets, oneway: oneway, restrictions: { file: turns.csv, from: street, to: onto, id_field: name } }"
            let summary = try Packager.build(try project(dir, network: network), output: dir + "/n.mmpk", timestamp: 1_795_305_600)
            let report = try #require(summary.network)
            // Arriving at the crossing by Main St (from the south or the north), leaving by Elm
            // St (to the west or the east).
            #expect(report.restrictions == 1 && report.forbiddenTurns == 4, "\(report)")
            let package = try MobileMapPackage(path: dir + "/n.mmpk")
            let router = Router(network: try RoutingNetwork.open(package))
            let mainSouth = StreetNetwork.Node(lon: -88.15, lat: 41.7502), elmEast = StreetNetwork.Node(lon: -88.1495, lat: 41.751)
            // North on Main St then right onto Elm St is forbidden, and one-way Main St leaves no other way.
            let refused = #expect(throws: RoutingError.self) { _ = try router.route([mainSouth, elmEast], by: .distance) }
            #expect(refused?.kind == .unreachable)
            // From Elm St onto Main St is allowed.
            let onto = try router.route([elmEast, StreetNetwork.Node(lon: -88.15, lat: 41.7518)], by: .distance)
            #expect(abs(onto.metres - (41.5 + 89.0)) < 2, "\(onto.metres)")
            let findings = PackageCheck.validate(path: dir + "/n.mmpk").diagnostics
            #expect(findings.contains { $0.code == "network.checked" && $0.message.contains("4 forbidden turns") }, "\(findings)")
            #expect(!findings.contains { $0.severity == .error }, "\(findings)")
        }
    }

    @Test func restrictionsNamingNoStreetOrStreetsApartAreRefused() throws {
        try withTemporaryDirectory { dir in
            try streets(dir, extra: #"{"type":"Feature","properties":{"name":"Lonely Ln","oneway":"B","speed":30},"geometry":{"type":"LineString","coordinates":[[-88.140,41.760],[-88.139,41.760]]}}"#)
            func refusal(_ rows: String, _ options: String = "from: street, to: onto, id_field: name") throws -> ProjectError? {
                try writeFile(dir + "/turns.csv", "street,onto\n" + rows)
                return projectRefusal {
                    _ = try Packager.build(try project(dir, network: "{ source: streets, restrictions: { file: turns.csv, \(options) } }"), output: dir + "/n.mmpk", timestamp: 1_795_305_600)
                }
            }
            let unknown = try refusal("Main St,Elm St\nMain St,Oak St\n")
            #expect(unknown?.kind == .invalidValue && unknown?.message.contains("'Oak St' (line 3)") == true, "\(String(describing: unknown))")
            let apart = try refusal("Main St,Lonely Ln\n")
            #expect(apart?.kind == .invalidValue && apart?.message.contains("do not meet: line 2 (Main St to Lonely Ln)") == true, "\(String(describing: apart))")
            let column = try refusal("Main St,Elm St\n", "from: Street, to: onto, id_field: name")
            #expect(column?.kind == .noSuchColumn && column?.message.contains("did you mean 'street'") == true, "\(String(describing: column))")
            let half = try refusal("Main St,\n")
            #expect(half?.kind == .invalidValue, "\(String(describing: half))")
            #expect(!FileManager.default.fileExists(atPath: dir + "/n.mmpk"))
        }
    }

    /// `metrics: [time]` builds the hierarchy by time alone: routes by distance are refused
    /// with a kind to switch on, and `validate` checks what there is.
    @Test func metricsChooseTheHierarchiesBuilt() throws {
        try withTemporaryDirectory { dir in
            try streets(dir)
            let summary = try Packager.build(try project(dir, network: "{ source: streets, metrics: [time] }"), output: dir + "/n.mmpk", timestamp: 1_795_305_600)
            #expect(summary.network?.shortcuts.map(\.metric) == [.time])
            let network = try RoutingNetwork.open(try MobileMapPackage(path: dir + "/n.mmpk"))
            #expect(network.metrics == [.time])
            let router = Router(network: network)
            let a = StreetNetwork.Node(lon: -88.15, lat: 41.7502), b = StreetNetwork.Node(lon: -88.1495, lat: 41.751)
            #expect(try router.route([a, b], by: .time).metres > 0)
            let refused = #expect(throws: RoutingError.self) { _ = try router.route([a, b], by: .distance) }
            #expect(refused?.kind == .noNetwork)
            let findings = PackageCheck.validate(path: dir + "/n.mmpk").diagnostics
            #expect(findings.contains { $0.code == "network.checked" } && !findings.contains { $0.severity == .error }, "\(findings)")
            let wrong = #expect(throws: ProjectError.self) { _ = try project(dir, network: "{ source: streets, metrics: [time, speed] }") }
            #expect(wrong?.kind == .invalidValue)
        }
    }
}
