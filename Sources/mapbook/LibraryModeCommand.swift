import ArgumentParser
import MapbookPortal
import MapbookLibrary
import MapbookSupport

struct LibraryModeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mode",
        abstract: "Print the library's mode, or switch between device and portal mode.",
        discussion: """
            Without a mode, prints `device` or `portal URL`. Switching to device mode removes \
            every downloaded package and signs out, as the Offline Mapbook app does, and says \
            what it removed. Switching to portal mode needs --portal (unless already in portal \
            mode); a different portal removes the old one's downloads and sign-in. Sideloaded \
            packages are never removed, only hidden in portal mode.
            """)

    @Argument(help: "The mode to switch to: device or portal.")
    var mode: LibraryMode?

    @Option(name: .long, help: ArgumentHelp("The portal to use in portal mode, e.g. https://www.arcgis.com.", valueName: "URL"))
    var portal: String?

    @Flag(name: .long, help: "Print the mode as JSON.")
    var json = false

    func validate() throws {
        if let portal {
            guard mode == .portal else { throw ValidationError("--portal goes with `portal` mode only") }
            do { _ = try DeviceLibrary.normalizedPortalURL(portal) } catch { throw ValidationError("--portal \(error.message)") }
        } else if mode == .portal, let current = try? LibraryCommand.library().mode(), current != .portal {
            // Only a library already in portal mode knows its portal; a damaged mode file is
            // left for run() to report.
            throw ValidationError("portal mode needs the portal's URL: `mapbook library mode portal --portal URL`")
        }
    }

    func run() throws {
        let library = LibraryCommand.library()
        let (before, beforeURL) = try LibraryCommand.attempt { (try library.mode(), try library.portalURL()) }
        var change = LibraryModeChange(before: before, beforePortal: beforeURL, mode: before, portal: beforeURL, cleanup: nil)
        if let mode {
            change.cleanup = try LibraryCommand.attempt { try library.setMode(mode, portalURL: portal) }
            change.mode = mode
            change.portal = try LibraryCommand.attempt { try library.portalURL() }
        }
        var out = Output()
        out.report(json: json, change.jsonValue, lines: change.lines)
        out.flush()
    }
}
