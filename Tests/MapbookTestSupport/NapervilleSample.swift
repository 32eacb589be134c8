import Foundation

/// The Naperville sample's sources (made by tools/samples/naperville.py) and its project and
/// search-quality files, in a new folder the caller removes.
public enum NapervilleSample {
    public static func project() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        let generator = Process()
        generator.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generator.arguments = ["python3", Fixtures.repositoryRoot.appendingPathComponent("tools/samples/naperville.py").path, dir.path]
        generator.standardOutput = FileHandle.nullDevice
        try generator.run()
        generator.waitUntilExit()
        guard generator.terminationStatus == 0 else { throw ExternalTools.ToolError(output: "tools/samples/naperville.py failed") }
        for file in ["project.yaml", "search-quality.yaml"] {
            try FileManager.default.copyItem(
                atPath: Fixtures.repositoryRoot.appendingPathComponent("samples/naperville-water/" + file).path, toPath: dir.path + "/" + file)
        }
        return dir
    }
}
