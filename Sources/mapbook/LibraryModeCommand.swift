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
        var out = Output()
        guard let mode else {
            let (current, url) = try LibraryCommand.attempt { (try library.mode(), try library.portalURL()) }
            if json {
                out.json(Self.json(mode: current, portal: url, cleanup: nil))
            } else {
                out.line([current.rawValue, url].compactMap { $0 }.joined(separator: " "))
            }
            out.flush()
            return
        }
        let (before, beforeURL) = try LibraryCommand.attempt { (try library.mode(), try library.portalURL()) }
        let cleanup = try LibraryCommand.attempt { try library.setMode(mode, portalURL: portal) }
        let url = try LibraryCommand.attempt { try library.portalURL() }
        if json {
            out.json(Self.json(mode: mode, portal: url, cleanup: cleanup))
            out.flush()
            return
        }
        switch mode {
        case .device:
            out.line(before == .device ? "Already in device mode." : "Switched to device mode: sideloaded packages are listed.")
        case .portal:
            if before == .portal && beforeURL == url {
                out.line("Already in portal mode with \(url ?? "").")
            } else {
                out.line("Switched to portal mode with \(url ?? ""): downloaded packages are listed; sideloaded ones are hidden, not removed.")
            }
        }
        for line in cleanup.removalLines { out.line(line) }
        if let credential = cleanup.removedCredential {
            out.line("Signed out \(credential.username) of \(credential.portalUrl).")
        }
        out.flush()
    }

    static func json(mode: LibraryMode, portal: String?, cleanup: LibraryCleanup?) -> JSONValue {
        var o: JSONObject = ["mode": .string(mode.rawValue), "portalUrl": portal.map(JSONValue.string) ?? .null]
        if let cleanup {
            o["removedPackages"] = .array(cleanup.removedPackages.map(\.jsonValue))
            o["removedPartialDownloads"] = .array(cleanup.removedPartialDownloads.map(JSONValue.string))
            o["signedOut"] = cleanup.removedCredential.map { .string($0.username) } ?? .null
        }
        return .object(o)
    }
}
