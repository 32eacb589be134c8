import Hummingbird
import MapbookEditing
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// What an item page shows its owner and the admins of who holds it (issue 34): the
    /// devices per version, the replicas of an editable package with their conflicts, the
    /// download and sync history, and the version devices must hold.
    static func versionValues(_ record: ItemRecord, _ call: PageRequest, _ portal: Portal) async throws -> [String: Any] {
        let item = record.item
        let reports = try await portal.store.deviceReports(itemId: item.id)
        let required = try await portal.requiredVersion(item.id)
        func when(_ ms: Int64) -> String { ISODate.formatMinutes(milliseconds: ms) + " UTC" }
        let outOfDate = reports.filter { $0.heldModified < item.modified }
        var versions: [[String: Any]] = []
        for held in Set(reports.map(\.heldModified)).sorted(by: >) {
            let holders = reports.filter { $0.heldModified == held }
            var label = "Version of \(when(held))"
            if held == item.modified { label += " (current)" } else if let required, held < required { label += " (out of date, older than the required version)" } else { label += " (out of date)" }
            versions.append([
                "label": label, "current": held == item.modified, "count": Format.count(holders.count, "device"),
                "devices": holders.map { ["user": $0.username, "device": String($0.deviceId.prefix(8)), "seen": when($0.lastSeen)] },
            ])
        }
        var summary = reports.isEmpty ? "No device has reported holding this item." : "\(Format.count(reports.count, "device")) hold this item; "
        if !reports.isEmpty { summary += outOfDate.isEmpty ? "all hold the current version." : "\(outOfDate.count) \(outOfDate.count == 1 ? "is" : "are") out of date." }
        var values: [String: Any] = [
            "summary": summary, "versions": versions, "has_versions": !versions.isEmpty, "current": String(item.modified),
            "canRequire": required != item.modified, "requireAction": "/home/items/\(item.id)/require",
        ]
        if let required { values["required"] = when(required) }
        let syncs = try await portal.store.replicaSyncs(itemId: item.id)
        values["replicas"] = syncs.map { sync -> [String: Any] in
            let pending = sync.conflicts.filter { $0.outcome == SyncConflict.Outcome.manual.rawValue }.count
            return [
                "replica": String(sync.replica.filter { $0 != "{" && $0 != "}" }.prefix(8)).lowercased(), "user": sync.username, "at": when(sync.at), "generation": String(sync.generation),
                "changes": Format.count(sync.changes, "change"), "pending": pending > 0 ? "\(Format.count(pending, "conflict")) waiting for a person to choose" : "no conflict waiting",
                "conflicts": sync.conflicts.map { c -> [String: Any] in
                    [
                        "layer": c.layer, "feature": c.globalid.filter { $0 != "{" && $0 != "}" }.prefix(8).lowercased(), "column": c.column, "base": c.base,
                        "theirs": c.theirs, "ours": c.ours, "outcome": outcomeLabel(c.outcome),
                    ]
                },
                "has_conflicts": !sync.conflicts.isEmpty,
            ]
        }
        values["has_replicas"] = !syncs.isEmpty
        let events = try await portal.store.itemEvents(itemId: item.id, limit: 50)
        values["events"] = events.map { ["at": when($0.at), "kind": $0.kind.rawValue, "user": $0.username ?? "anyone", "device": $0.deviceId.map { String($0.prefix(8)) } ?? "", "detail": $0.detail] }
        values["has_events"] = !events.isEmpty
        values["csrf"] = call.session?.csrf ?? ""
        return values
    }

    static func outcomeLabel(_ outcome: String) -> String {
        switch outcome {
        case "ours": "the device's value kept (last to synchronise)"
        case "manual": "pending: the portal's value kept, for a person to choose"
        case "deleted": "the feature was deleted; the device's update was dropped"
        default: outcome
        }
    }

    /// Sets or lifts the version devices must hold: a form of the item page, for the item's
    /// owner and the admins, with its CSRF token; kept in the audit log.
    static func requireVersion(_ call: PageRequest, _ id: String, _ portal: Portal) async throws -> Response {
        try requireOwnForm(call)
        let record = try await pageItem(id, call, portal)
        guard let user = call.user, portal.canWrite(record, user) else {
            throw PageError(kind: .forbidden, heading: "Not yours to change", message: "Only the item's owner or an administrator can require a version.")
        }
        let target = "item \(record.item.id) '\(record.item.title)'"
        if call["modified"] == "none" {
            try await portal.setRequiredVersion(record.item.id, nil)
            try await portal.audit(AuditActor(user, address: call.clientAddress), "lifted the required version", target)
        } else {
            // Only the current version can be required: the portal keeps no other to download.
            guard call["modified"] == String(record.item.modified) else {
                throw PageError(kind: .badRequest, heading: "Not the current version", message: "The item has a newer version than the page showed; reload it and try again.")
            }
            try await portal.setRequiredVersion(record.item.id, record.item.modified)
            try await portal.audit(AuditActor(user, address: call.clientAddress), "required a version", target, "the version of \(ISODate.formatMinutes(milliseconds: record.item.modified)) UTC")
        }
        return PortalResponse.redirect("/home/item.html?id=\(record.item.id)#devices")
    }
}
