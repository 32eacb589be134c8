import ArgumentParser

/// `mapbook portal ...`: host packages (serve, user) and use a portal (sign in, search,
/// download, check for updates, publish).
struct PortalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "portal",
        abstract: "Host packages on a portal that speaks the ArcGIS sharing API, or use one.",
        discussion: """
            Hosting: `serve` and `user add` work on a portal's data folder. Using a portal: \
            `signin` puts the device library (see `mapbook library`) in portal mode with the \
            portal and keeps the token; `search`, `download`, `check`, `update` and `publish` \
            then use it; `signout` removes the token and the downloads. Those commands exit \
            with status 3 when the portal cannot be reached.
            """,
        subcommands: [
            PortalServeCommand.self,
            PortalUserCommand.self,
            PortalGCCommand.self,
            PortalMigrateCommand.self,
            PortalSignInCommand.self,
            PortalSignOutCommand.self,
            PortalSearchCommand.self,
            PortalConflictsCommand.self,
            PortalDownloadCommand.self,
            PortalCheckCommand.self,
            PortalUpdateCommand.self,
            PortalPublishCommand.self,
            PortalKeysCommand.self,
        ])
}

struct PortalUserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage the portal's users (works on the data folder, with or without a running server).",
        subcommands: [PortalUserAddCommand.self])
}
