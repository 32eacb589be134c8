import HTTPTypes
import MapbookEditing
import MapbookPortalAPI
import MapbookSupport

/// Who holds which version (issue 34, docs/PORTAL.md "Devices and versions"): devices name
/// themselves and the version they hold in two headers of the requests they make anyway (the
/// item, when they check for updates; its data, when they download), so a portal that does
/// not know them (ArcGIS Online) ignores them. The item page counts the devices per version.
extension Portal {
    /// The device library's id (made once per library, `DeviceId`).
    static let deviceHeader = HTTPField.Name(DeviceId.header)!
    /// The item's `modified` (milliseconds) the device holds.
    static let holdsHeader = HTTPField.Name(DeviceId.holdsHeader)!

    /// The request's device id, when it carries a well-formed one.
    static func deviceId(of call: PortalRequest) -> String? {
        call.request.headers[deviceHeader].flatMap { DeviceId.isValid($0) ? $0 : nil }
    }

    /// Keeps the caller's report of the version it holds, when the request carries one from a
    /// signed-in user; `downloading` marks the version being downloaded as held. A report is
    /// history, not an answer: failing to keep it fails nothing.
    func noteDevice(_ call: PortalRequest, _ record: ItemRecord, downloading: Bool) async {
        guard let user = call.user, let device = Self.deviceId(of: call) else { return }
        let held = downloading ? record.item.modified : call.request.headers[Self.holdsHeader].flatMap { Int64($0) }
        // A version later than the item's is no version the portal gave out.
        guard let held, held >= 0, held <= record.item.modified else { return }
        let report = DeviceReport(itemId: record.item.id, deviceId: device, username: user.username, heldModified: held, lastSeen: TokenService.now(), address: call.clientAddress)
        try? await store.saveDeviceReport(report)
    }

    /// Keeps an event of the item's history (a download, a sync, a new version).
    func noteEvent(_ call: PortalRequest, _ record: ItemRecord, _ kind: ItemEvent.Kind, _ detail: String) async {
        let device = Self.deviceId(of: call)
        let event = ItemEvent(itemId: record.item.id, at: TokenService.now(), kind: kind, username: call.user?.username, deviceId: device, address: call.clientAddress, detail: detail)
        try? await store.recordItemEvent(event)
    }

    static func requiredKey(_ itemId: String) -> String { "requiredVersion:" + itemId }

    /// The version of the item devices must hold (its `modified`), if an admin set one.
    func requiredVersion(_ itemId: String) async throws -> Int64? {
        try await store.setting(Self.requiredKey(itemId)).flatMap { Int64($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Sets (or with nil, lifts) the version devices must hold.
    func setRequiredVersion(_ itemId: String, _ modified: Int64?) async throws {
        try await store.setSetting(Self.requiredKey(itemId), String(modified ?? 0))
    }

    /// The item's JSON as the API gives it, with the version devices must hold when one is set
    /// (`mapbookRequiredModified`), which the device library reads in its update check.
    func itemJSON(_ record: ItemRecord) async throws -> JSONValue {
        guard let required = try await requiredVersion(record.item.id), case .object(var object) = record.item.jsonValue else { return record.item.jsonValue }
        object["mapbookRequiredModified"] = .integer(required)
        return .object(object)
    }
}

extension Portal {
    /// Keeps a replica's sync and its conflicts for the item page, and the sync in the item's
    /// history. Like every report, failing to keep it fails nothing.
    func noteSync(_ call: PortalRequest, _ record: ItemRecord, replica: String, _ response: SyncResponse) async {
        guard let user = call.user, response.applied else { return }
        let conflicts = response.conflicts.map {
            ReplicaSync.Conflict(
                layer: $0.layer, globalid: $0.globalid, column: $0.column, base: Self.shown($0.base), theirs: Self.shown($0.theirs), ours: Self.shown($0.ours),
                outcome: $0.outcome.rawValue)
        }
        let device = Self.deviceId(of: call)
        let sync = ReplicaSync(
            itemId: record.item.id, replica: replica, username: user.username, deviceId: device, at: TokenService.now(), generation: response.generation,
            changes: response.changes, conflicts: conflicts)
        try? await store.saveReplicaSync(sync)
        await noteEvent(call, record, .sync, "Synchronised \(Format.count(response.changes, "change")), \(Format.count(conflicts.count, "conflict")); generation \(response.generation)")
    }

    /// A value of a feature as a page shows it.
    static func shown(_ value: SQLiteValue) -> String {
        switch value {
        case .null: "(empty)"
        case .blob(let bytes): "(\(Format.bytes(Int64(bytes.count))) of data)"
        default: value.text ?? ""
        }
    }
}
