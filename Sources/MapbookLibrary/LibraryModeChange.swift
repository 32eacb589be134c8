import MapbookSupport

/// A switch of the library's mode as `mapbook library mode` reports it: the mode and portal
/// before and after, and what the switch removed (nil: the mode was only read).
public struct LibraryModeChange: Sendable {
    public var before: LibraryMode
    public var beforePortal: String?
    public var mode: LibraryMode
    public var portal: String?
    public var cleanup: LibraryCleanup?

    public init(before: LibraryMode, beforePortal: String?, mode: LibraryMode, portal: String?, cleanup: LibraryCleanup?) {
        self.before = before
        self.beforePortal = beforePortal
        self.mode = mode
        self.portal = portal
        self.cleanup = cleanup
    }

    public var jsonValue: JSONValue {
        var o: JSONObject = ["mode": .string(mode.rawValue), "portalUrl": portal.map(JSONValue.string) ?? .null]
        if let cleanup {
            o["removedPackages"] = .array(cleanup.removedPackages.map(\.jsonValue))
            o["removedPartialDownloads"] = .array(cleanup.removedPartialDownloads.map(JSONValue.string))
            o["signedOut"] = cleanup.removedCredential.map { .string($0.username) } ?? .null
        }
        return .object(o)
    }

    public var lines: [String] {
        guard let cleanup else { return [[mode.rawValue, portal].compactMap { $0 }.joined(separator: " ")] }
        var lines: [String]
        switch mode {
        case .device:
            lines = [before == .device ? "Already in device mode." : "Switched to device mode: sideloaded packages are listed."]
        case .portal:
            lines = [before == .portal && beforePortal == portal
                ? "Already in portal mode with \(portal ?? "")."
                : "Switched to portal mode with \(portal ?? ""): downloaded packages are listed; sideloaded ones are hidden, not removed."]
        }
        lines += cleanup.removalLines
        if let credential = cleanup.removedCredential { lines.append("Signed out \(credential.username) of \(credential.portalUrl).") }
        return lines
    }
}
