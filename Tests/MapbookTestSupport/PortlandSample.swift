import Foundation

/// The samples/portland-trees project ready to build: its files (the project, the empty
/// inspections table) copied into a folder, and the Portland fixtures linked into its `data/`.
/// Tests that use it need `Fixtures.required`.
public enum PortlandSample {
    /// Writes the project into `dir`; returns the path of its project.yaml.
    @discardableResult
    public static func write(in dir: String) throws -> String {
        try SampleFolder.copy("portland-trees", to: dir)
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        for name in ["Neighborhood_Boundaries.geojson", "pdx_street_trees.csv"] {
            try FileManager.default.createSymbolicLink(atPath: dir + "/data/" + name, withDestinationPath: Fixtures.path("portland/" + name))
        }
        return dir + "/project.yaml"
    }
}

/// A sample project's own files (not its README), copied as they are.
public enum SampleFolder {
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
