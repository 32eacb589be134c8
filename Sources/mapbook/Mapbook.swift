import ArgumentParser
import MapbookPackager
import MapbookSupport

#if canImport(Glibc)
import Glibc
#endif

@main
struct Mapbook: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapbook",
        abstract: "Build, inspect, validate and unpack offline mobile map packages (.mmpk).",
        version: MapbookInfo.version,
        subcommands: [
            // Packages; finding and routing; field edits; the viewer; the library and portal.
            CreateCommand.self, InspectCommand.self, ValidateCommand.self, SignCommand.self, KeysCommand.self, ExtractCommand.self, TilesCommand.self,
            SearchCommand.self, ReverseCommand.self, RouteCommand.self,
            EditCommand.self, SyncCommand.self,
            TocCommand.self, LegendCommand.self, BookmarksCommand.self, IdentifyCommand.self, RenderCommand.self, ViewCommand.self, ServeCommand.self,
            LibraryCommand.self, PortalCommand.self,
        ])

    static func main() async {
        // `--version` answered before the argument parser, whose reflection is most of a start (issue 36).
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) { Output.write(MapbookInfo.version + "\n", to: STDOUT_FILENO); Glibc.exit(0) }
        // Packages must be byte-identical wherever they are built; libarchive writes ZIP
        // timestamps in local time, so the whole command runs in UTC.
        setenv("TZ", "UTC", 1)
        tzset()
        do {
            if try !InspectCommand.runQuickly(CommandLine.arguments.dropFirst()) {
                var command = try parseCommand()
                if var asyncCommand = command as? any AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
            }
            WorkFiles.awaitInterruption()
        } catch {
            WorkFiles.awaitInterruption()
            exit(withError: error)
        }
    }

    /// The command the arguments name. A leaf command (`inspect`, `portal serve`) is parsed by
    /// its own parser alone, so the reflection that builds the others' stays off the start
    /// (issue 36); help, completion scripts and what it refuses go to the whole parser.
    nonisolated static func parseCommand() throws -> any ParsableCommand {
        var (type, rest): (any ParsableCommand.Type, ArraySlice<String>) = (Self.self, CommandLine.arguments.dropFirst())
        while !type.configuration.subcommands.isEmpty {
            guard let next = type.configuration.subcommands.first(where: { $0._commandName == rest.first }) else { return try parseAsRoot() }
            (type, rest) = (next, rest.dropFirst())
        }
        let special = ["-h", "--help", "-help", "help", "--version", "--generate-completion-script", "--experimental-dump-help"]
        guard !rest.contains(where: { special.contains(String($0.split(separator: "=").first ?? "")) }) else { return try parseAsRoot() }
        return try (try? type.parseAsRoot(Array(rest))) ?? parseAsRoot()
    }
}
