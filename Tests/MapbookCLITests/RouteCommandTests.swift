import Foundation
import FoundationXML
import MapbookInspection
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

/// `mapbook route` on the Naperville sample's network (one-way Main St northbound, Center St
/// southbound), built once by SearchCommandTests.
@Suite struct RouteCommandTests {
    var package: String { SearchCommandTests.package }

    func solve(_ arguments: [String]) throws -> (MapbookBinary.Result, JSONObject?) {
        let run = try MapbookBinary.run(["route", package] + arguments + ["--json"])
        return (run, run.status == 0 ? try JSONParser.parse(run.stdout).objectValue : nil)
    }

    @Test func routeBetweenNamedPlacesGivesTheSolveResponseAndDirections() throws {
        let (run, json) = try solve(["--from", "484 W Spring Ave", "--to", "451 E Chicago Ave"])
        #expect(run.status == 0, "\(run.stderr)")
        let response = try #require(json)
        let route = try #require(response.object("routes")?.array("features")?.first?.objectValue?.object("attributes"))
        let length = try #require(route.double("Total_Length")), minutes = try #require(route.double("Total_Time"))
        #expect(length > 500 && length < 5000, "\(length) m")
        #expect(minutes > 0.5 && minutes < 10, "\(minutes) min")
        let directions = try #require(response.array("directions")?.first?.objectValue?.array("features")?.compactMap { $0.objectValue?.object("attributes") })
        #expect(directions.first?.string("maneuverType") == "esriDMTDepart")
        #expect(directions.last?.string("maneuverType") == "esriDMTStop")
        #expect(directions.dropFirst().dropLast().allSatisfy { ($0.string("text") ?? "").contains(" onto ") })
        // The directions' lengths add up to the route's.
        let sum = directions.compactMap { $0.double("length") }.reduce(0, +)
        #expect(abs(sum - length) < 1, "\(sum) vs \(length)")

        let text = try MapbookBinary.run(["route", package, "--from", "484 W Spring Ave", "--to", "451 E Chicago Ave"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("484 W Spring Ave to 451 E Chicago Ave: "), "\(text.stdout)")
        #expect(text.stdout.contains("  1. Start heading "))
    }

    /// Main St is one-way northbound: north along it is direct, back south is a detour.
    @Test func oneWayStreetsAreDrivenOnlyTheirWay() throws {
        let south = try MapbookBinary.run(["search", package, "S Main St", "--json", "--max", "1"])
        let north = try MapbookBinary.run(["search", package, "N Main St", "--json", "--max", "1"])
        func place(_ r: MapbookBinary.Result) throws -> String {
            let location = try #require(try JSONParser.parse(r.stdout).arrayValue?.first?.objectValue?.object("location"))
            return "\(location.double("x") ?? 0),\(location.double("y") ?? 0)"
        }
        let a = try place(south), b = try place(north)
        let (up, upJSON) = try solve(["--from", a, "--to", b, "--by", "distance"])
        let (down, downJSON) = try solve(["--from", b, "--to", a, "--by", "distance"])
        #expect(up.status == 0 && down.status == 0, "\(up.stderr) \(down.stderr)")
        let upLength = try #require(upJSON?.object("routes")?.array("features")?.first?.objectValue?.object("attributes")?.double("Total_Length"))
        let downLength = try #require(downJSON?.object("routes")?.array("features")?.first?.objectValue?.object("attributes")?.double("Total_Length"))
        let upStreets = Set(try #require(upJSON?.array("directions")?.first?.objectValue?.array("features")).compactMap { $0.objectValue?.object("attributes")?.string("streetName") })
        #expect(upStreets.allSatisfy { $0.hasSuffix("Main St") }, "\(upStreets)")
        #expect(downLength > upLength + 300, "north \(upLength) m, south \(downLength) m")
    }

    /// The sample's turn restrictions (data/turns.csv): no left turn from Washington St
    /// northbound onto Chicago Ave at the town centre (tools/samples/naperville.py's LON0,
    /// LAT0). The route goes on and comes back; the right turn the other way is direct.
    @Test func theSamplesNoLeftTurnIsObeyed() throws {
        let south = "-88.1535,41.7499", west = "-88.1550,41.7508"
        let (left, leftJSON) = try solve(["--from", south, "--to", west])
        let (right, rightJSON) = try solve(["--from", west, "--to", south])
        #expect(left.status == 0 && right.status == 0, "\(left.stderr) \(right.stderr)")
        func length(_ json: JSONObject?) -> Double { json?.object("routes")?.array("features")?.first?.objectValue?.object("attributes")?.double("Total_Length") ?? 0 }
        let texts = (leftJSON?.array("directions")?.first?.objectValue?.array("features") ?? []).compactMap { $0.objectValue?.object("attributes")?.string("text") }
        #expect(!texts.contains("Turn left onto W Chicago Ave") && texts.contains { $0.hasPrefix("Make a U-turn") }, "\(texts)")
        #expect(length(rightJSON) < 250 && length(leftJSON) > length(rightJSON) + 150, "left \(length(leftJSON)) m, right \(length(rightJSON)) m")
    }

    @Test func gpxHoldsTheTrackAndTheDirections() throws {
        let file = NSTemporaryDirectory() + "route-\(getpid()).gpx"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try MapbookBinary.run(["route", package, "--from", "484 W Spring Ave", "--to", "451 E Chicago Ave", "--gpx", file])
        #expect(run.status == 0, "\(run.stderr)")
        let gpx = try String(contentsOfFile: file, encoding: .utf8)
        let document = try XMLDocument(xmlString: gpx)
        #expect(try document.nodes(forXPath: "//*[local-name()='trkpt']").count > 5)
        let names = try document.nodes(forXPath: "//*[local-name()='rtept']/*[local-name()='name']").compactMap(\.stringValue)
        #expect(names.first?.hasPrefix("Start heading") == true && names.last?.hasPrefix("Arrive at the destination") == true, "\(names)")
    }

    /// The hierarchy is built in the same order every run: two builds of the sample, in two
    /// processes (whose hashing differs), are the same bytes.
    @Test func theSamePackageEveryBuild() throws {
        let again = SearchCommandTests.directory + "/again.mmpk"
        defer { try? FileManager.default.removeItem(atPath: again) }
        _ = package
        let run = try MapbookBinary.run(["create", SearchCommandTests.directory + "/project.yaml", "-o", again, "--fixed-time", "2026-01-01"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try readFile(again) == readFile(package))
    }

    @Test func placesThatCannotBeRoutedAreToldWithExitStatus1() throws {
        let far = try MapbookBinary.run(["route", package, "--from", "-88.15,41.75", "--to", "-87.6,41.9"])
        #expect(far.status == 1)
        #expect(far.stderr.contains("the destination") && far.stderr.contains("from every street"), "\(far.stderr)")
        let same = try MapbookBinary.run(["route", package, "--from", "-88.15,41.75", "--to", "-88.15,41.75"])
        #expect(same.status == 1)
        #expect(same.stderr.contains("same place"), "\(same.stderr)")
        let unknown = try MapbookBinary.run(["route", package, "--from", "Nowhere Particular 99999", "--to", "-88.15,41.75"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no place found"), "\(unknown.stderr)")
    }
}

extension RouteCommandTests {
    /// A copy of the sample with bytes of its network changed, through the network's checks
    /// (`validate` would stop first at the entry's CRC, which the change breaks).
    func checkTampered(_ change: (inout [UInt8], _ entryStart: Int, _ network: [UInt8]) throws -> Void) throws -> [Diagnostic] {
        let copy = NSTemporaryDirectory() + "tampered-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).mmpk"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: package)))
        let archive = try ZipArchive(path: package)
        let entry = try #require(archive.entries.first { $0.name.hasSuffix(".mnet") })
        let range = try archive.dataRange(of: entry)
        let network = try range.readAll()
        try change(&bytes, Int(range.offset), network)
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        return NetworkCheck.findings(try MobileMapPackage(path: copy)).filter { $0.severity == .error }
    }

    @Test func networkChecksFindAHierarchyThatDoesNotAddUpAndEdgesOfNoFeature() throws {
        // The header says where sections lie: find the time hierarchy (id 16) and the edges (2).
        func section(_ network: [UInt8], _ id: UInt32) -> (Int, Int) {
            let count = Int(network.u32le(24))
            for i in 0..<count where network.u32le(32 + i * 24) == id {
                return (Int(network.u64le(32 + i * 24 + 8)), Int(network.u64le(32 + i * 24 + 16)))
            }
            return (0, 0)
        }
        let hierarchy = try checkTampered { bytes, start, network in
            let (offset, _) = section(network, 16)
            // The first arc's weight (an up arc, in a node's list), one more: past the arc
            // count, the up and down starts and the ranks, of the network's nodes and the
            // copies its forbidden turns make (the turns section, 9, counts them first).
            let (turns, _) = section(network, 9)
            let nodes = Int(network.u32le(12)) + Int(network.u32le(turns))
            let weight = start + offset + 8 + (nodes + 1) * 8 + nodes * 4 + 4
            bytes[weight] &+= 1
        }
        #expect(hierarchy.contains { $0.code == "network.hierarchy" }, "\(hierarchy)")
        let source = try checkTampered { bytes, start, network in
            let (offset, _) = section(network, 2)
            // The first edge's source feature id, far beyond the layer's.
            for k in 0..<8 { bytes[start + offset + 32 + k] = k == 7 ? 0x40 : 0 }
        }
        #expect(source.contains { $0.code == "network.source" }, "\(source)")
        // The package as built has none.
        #expect(NetworkCheck.findings(try MobileMapPackage(path: package)).allSatisfy { $0.severity == .note })
    }
}

extension [UInt8] {
    func u32le(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(self[at + $1]) << (8 * $1) } }
    func u64le(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(self[at + $1]) << (8 * $1) } }
}

/// Routes on the real TIGER roads of Manassas Park, between streets found by name through
/// the package's locator.
@Suite(Fixtures.required) struct TigerRouteTests {
    @Test func routesBetweenStreetsNamedThroughTheLocator() throws {
        try withTemporaryDirectory { dir in
            let roads = Fixtures.path("tippecanoe-edge/tests/tl_2018_51685_roads/in.json")
            try writeFile(dir + "/project.yaml", """
                title: Manassas Park Roads
                sources:
                  roads: { path: \(roads), search: FULLNAME }
                network:
                  source: roads
                  name_field: FULLNAME
                  class: MTFCC
                  speed: { by_class: { S1100: 90, S1200: 60, S1400: 40 }, default: 30 }
                maps:
                  - name: Roads
                    layers: [roads]
                """)
            let created = try MapbookBinary.run(["create", dir + "/project.yaml", "-o", dir + "/roads.mmpk"])
            #expect(created.status == 0, "\(created.stderr)")
            #expect(created.stdout.contains("network Streets"), "\(created.stdout)")
            let run = try MapbookBinary.run(["route", dir + "/roads.mmpk", "--from", "Manassas Dr", "--to", "Euclid Ave", "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let response = try #require(try JSONParser.parse(run.stdout).objectValue)
            let steps = try #require(response.array("directions")?.first?.objectValue?.array("features")?.compactMap { $0.objectValue?.object("attributes") })
            #expect(steps.first?.string("streetName") == "Manassas Dr", "\(steps.map { $0.string("text") ?? "" })")
            #expect(steps.dropLast().last?.string("streetName") == "Euclid Ave", "\(steps.map { $0.string("text") ?? "" })")
            let length = try #require(response.object("routes")?.array("features")?.first?.objectValue?.object("attributes")?.double("Total_Length"))
            #expect(length > 100 && length < 10_000, "\(length)")
            let valid = try MapbookBinary.run(["validate", dir + "/roads.mmpk"])
            #expect(valid.status == 0 && valid.stdout.contains("network.checked"), "\(valid.stdout)")
        }
    }
}
