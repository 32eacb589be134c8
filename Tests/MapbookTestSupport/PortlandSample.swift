import Foundation

/// The samples/portland-trees project ready to build: its files (the project, the empty
/// inspections table) copied into a folder, and the Portland fixtures linked into its `data/`.
/// Tests that use it need `Fixtures.required`.
public enum PortlandSample {
    /// Writes the project into `dir`; returns the path of its project.yaml.
    @discardableResult
    public static func write(in dir: String) throws -> String {
        try SampleFolder.write("portland-trees", in: dir)
    }
}

/// A sample project's own files (not its README), copied as they are, and the shared fixtures
/// it reads linked into its `data/` folder.
public enum SampleFolder {
    /// The fixtures each sample reads from its `data/` folder: the name there, the fixture.
    public static let fixtures: [String: [(name: String, fixture: String)]] = [
        "portland-trees": ["Neighborhood_Boundaries.geojson", "pdx_street_trees.csv"].map { ($0, "portland/" + $0) },
        "world": [
            "ne_110m_admin_0_countries.json", "ne_110m_lakes.json", "ne_110m_rivers_lake_centerlines.json",
            "ne_110m_populated_places_simple.json",
        ].map { ($0, "natural-earth/110m/" + $0) },
    ]

    /// Copies `sample` into `dir` and links its fixtures into `dir/data`; returns the path of
    /// its project.yaml. Tests that use it need `Fixtures.required`.
    @discardableResult
    public static func write(_ sample: String, in dir: String) throws -> String {
        try copy(sample, to: dir)
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        for (name, fixture) in fixtures[sample] ?? [] {
            try FileManager.default.createSymbolicLink(atPath: dir + "/data/" + name, withDestinationPath: Fixtures.path(fixture))
        }
        return dir + "/project.yaml"
    }

    public static func copy(_ sample: String, to dir: String) throws {
        let folder = Fixtures.repositoryRoot.appendingPathComponent("samples/\(sample)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name != "README.md" {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: dir + "/" + name)
        }
    }
}
