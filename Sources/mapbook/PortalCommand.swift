import ArgumentParser

/// `mapbook portal ...`: host packages (serve, user) and use a portal (sign in, search,
/// download, check for updates, publish).
struct PortalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "portal",
        abstract: "Host packages on a portal that speaks the ArcGIS sharing API, or use one.",
        subcommands: [
            PortalServeCommand.self,
            PortalUserCommand.self,
        ])
}

struct PortalUserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage the portal's users (works on the data folder, with or without a running server).",
        subcommands: [PortalUserAddCommand.self])
}
