import ArgumentParser
import MapbookLibrary

struct LibraryReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Say whether the portal is told which package versions this device holds, or turn it on or off.",
        discussion: """
            With `on` (the default), update checks and downloads name this library's device id \
            and the version of each package it holds, so the portal's admins see who is out of \
            date (docs/LIBRARY.md). With `off`, they name neither.
            """)

    @Argument(help: "on or off; without it, prints the setting.")
    var setting: Setting?
    enum Setting: String, ExpressibleByArgument { case on, off }
    @Flag(name: .long, help: "Print the setting as JSON.")
    var json = false

    func run() throws {
        let library = LibraryCommand.library()
        let identity = try LibraryCommand.attempt { try setting.map { try library.setReporting($0 == .on) } ?? library.deviceIdentity() }
        var out = Output()
        out.report(json: json, identity.jsonValue, lines: identity.lines)
        out.flush()
    }
}
