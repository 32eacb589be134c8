import ArgumentParser

/// `mapbook tiles`: the vector tile tools, one subcommand each.
struct TilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Build, export and decode Mapbox Vector Tiles (MVT 2.1), the tiles of a .vtpk backdrop.",
        subcommands: [
            TilesBuildCommand.self,
            TilesExportCommand.self,
            TilesDecodeCommand.self,
        ])
}
