import MapbookPackage
import MapbookSupport

/// The last update check against the portal (docs/LIBRARY.md, `updates.json`): when it ran
/// and what it found per downloaded item, so a viewer offline still says whether an update was
/// waiting and since when it has not been able to ask.
public struct UpdateCheck: Sendable, Equatable {
    /// What the portal said of one downloaded item.
    public enum Finding: String, Sendable {
        /// The download is the item's latest version.
        case current
        /// The item was modified after the download.
        case updateAvailable = "update-available"
        /// The item was modified after the download, and the portal's administrator requires
        /// a version later than the one held (issue 34).
        case updateRequired = "update-required"
        /// The item was deleted, or is no longer shared with the user.
        case unavailable
    }

    /// Whether the finding is an update, required or not.
    public static func isUpdate(_ finding: Finding?) -> Bool { finding == .updateAvailable || finding == .updateRequired }

    /// The portal checked.
    public var portalUrl: String
    /// When the check ran, epoch milliseconds.
    public var checkedAt: Int64
    /// Item id to what was found.
    public var findings: [String: Finding]

    public init(portalUrl: String, checkedAt: Int64, findings: [String: Finding]) {
        self.portalUrl = portalUrl
        self.checkedAt = checkedAt
        self.findings = findings
    }

    init?(json: JSONObject) {
        guard let portal = json.string("portalUrl"), let checkedAt = json["checkedAt"]?.int64Value else { return nil }
        var findings: [String: Finding] = [:]
        for (id, value) in json.object("items") ?? [:] {
            if let finding = value.stringValue.flatMap(Finding.init(rawValue:)) { findings[id] = finding }
        }
        self.init(portalUrl: portal, checkedAt: checkedAt, findings: findings)
    }

    var json: JSONObject {
        var items = JSONObject()
        for id in findings.keys.sorted() { items[id] = .string(findings[id]!.rawValue) }
        return ["portalUrl": .string(portalUrl), "checkedAt": .integer(checkedAt), "items": .object(items)]
    }
}

extension DeviceLibrary {
    var updateCheckPath: String { root + "/updates.json" }

    /// The last update check, when one ran against the library's current portal; nil
    /// otherwise, and when the file is damaged (it only caches what the next check asks again).
    public func lastUpdateCheck() throws -> UpdateCheck? {
        try withLock(creating: false) {
            guard let portal = try readState().portalURL,
                let bytes = try? LibraryFiles.read(updateCheckPath, limit: 16 << 20),
                let object = (try? JSONParser.parse(bytes))?.objectValue,
                let check = UpdateCheck(json: object), check.portalUrl == portal
            else { return nil }
            return check
        }
    }

    /// Marks item `itemId` current in the last update check, if there is one: what was just
    /// downloaded is its latest version, so no viewer offers the update again.
    public func markCurrent(itemId: String) throws {
        guard var check = try lastUpdateCheck(), check.findings[itemId] != nil, check.findings[itemId] != .current else { return }
        check.findings[itemId] = .current
        try saveUpdateCheck(check)
    }

    /// Keeps `check` as the last one.
    public func saveUpdateCheck(_ check: UpdateCheck) throws {
        try withLock(creating: true) {
            try AtomicFile.write(JSONWriter.bytes(.object(check.json)), to: updateCheckPath)
        }
    }
}
