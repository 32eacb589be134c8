import Foundation
import MapbookTestSupport
import Testing

/// The real `arcgis` Python client (ArcGIS API for Python, from PyPI, installed into .venv by
/// tools/setup) against `mapbook portal serve --self-signed` on 127.0.0.1: sign in both ways,
/// publish in parts and whole, search, get, download, update with a new file, share, groups,
/// delete (tools/portal/arcgis_client_check.py says each check it makes).
@Suite(.serialized) struct PortalArcGISClientTests {
    static let hasArcGIS: Bool = {
        guard FileManager.default.isExecutableFile(atPath: ExternalTools.python) else { return false }
        return (try? ExternalTools.run(ExternalTools.python, ["-c", "import arcgis.gis, six"]))?.status == 0
    }()

    @Test(.enabled(if: hasArcGIS || ExternalTools.isCI, "the arcgis Python package is not in .venv (tools/setup installs it from PyPI); cannot run the real client"))
    func theArcGISPythonClientWorksAgainstThePortal() throws {
        let work = NSTemporaryDirectory() + "mapbook-arcgis-\(getpid())"
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let first = try TestPackages.makePackage(in: work, name: "Field Water.mmpk")
        // A second version: the same package written at another time, so its bytes differ.
        let second = try TestPackages.makePackage(in: work, name: "Field Water v2.mmpk", timestamp: 1_800_000_000)

        let server = try PortalServerProcess(users: [("alice", "alice-secret-1", true), ("bob", "bob-secret-22", false)])
        defer {
            server.stop()
            server.removeData()
        }
        let script = Fixtures.repositoryRoot.appendingPathComponent("tools/portal/arcgis_client_check.py").path
        let (status, output) = try ExternalTools.run(
            ExternalTools.python, [script, server.url, first, second, "alice", "alice-secret-1", "bob", "bob-secret-22", work + "/downloads"])
        let lines = output.split(separator: "\n").filter { $0.hasPrefix("ok ") || $0.hasPrefix("FAIL") || $0.contains("Error") || $0.contains("Exception") }
        #expect(status == 0, "\(lines.suffix(8).joined(separator: "\n"))\n\(output.suffix(1500))")
        #expect(output.contains("all checks passed"))
    }
}
