import Foundation
import MapbookTestSupport
import Testing
import MapbookInspection

/// The sample `make demo` builds: generated, packaged and validated as a user would.
@Suite struct SampleTests {
    @Test func theNapervilleSampleBuildsAStrictlyValidThreeMapPackage() throws {
        try withTemporaryDirectory { dir in
            let generator = Process()
            generator.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            generator.arguments = ["python3", Fixtures.repositoryRoot.appendingPathComponent("tools/samples/naperville.py").path, dir]
            generator.standardOutput = FileHandle.nullDevice
            try generator.run()
            generator.waitUntilExit()
            #expect(generator.terminationStatus == 0)
            for file in ["project.yaml", "search-quality.yaml"] {
                try FileManager.default.copyItem(
                    atPath: Fixtures.repositoryRoot.appendingPathComponent("samples/naperville-water/" + file).path, toPath: dir + "/" + file)
            }

            let create = try MapbookBinary.run(["create", dir + "/project.yaml", "-o", dir + "/n.mmpk", "--fixed-time", "2026-01-01"])
            #expect(create.status == 0, "\(create.stderr)")
            let validate = try MapbookBinary.run(["validate", "--strict", dir + "/n.mmpk"])
            #expect(validate.status == 0, "\(validate.stdout)")

            let report = try PackageInspector.inspect(path: dir + "/n.mmpk")
            #expect(report.maps.map(\.name) == ["811 Map", "Emergency Response Map", "CIP Map"])
            #expect(report.maps.allSatisfy { $0.bookmarks.count == 2 })
            #expect(report.maps.allSatisfy { $0.layers.contains { $0.isBasemap && $0.title == "Reference Backdrop" } })
            let emergency = report.maps[1].layers.filter { !$0.isBasemap }
            #expect(emergency.first { $0.title == "Water Mains" }?.rendererFields == ["DIAMETER"])
            #expect(emergency.first { $0.title == "Water System Valves" }?.rendererFields == ["VALVETYPE"])
            #expect(report.tilePackages.first?.tiles ?? 0 > 0)
        }
    }
}
