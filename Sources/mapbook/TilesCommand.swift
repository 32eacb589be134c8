import ArgumentParser

/// `mapbook tiles`: the vector tiles of a backdrop.
struct TilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Work with the vector tiles of a package's backdrop or a .vtpk.",
        subcommands: [
            TilesExportCommand.self,
        ])
}
