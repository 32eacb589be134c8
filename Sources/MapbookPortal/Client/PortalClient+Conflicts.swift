import MapbookPortalAPI
import MapbookSupport

/// The conflicts an item's synchronisations and republishes met, for its owner (`mapbook
/// portal conflicts ITEM`, docs/PORTAL.md "Republishing an editable package").
public struct PortalConflicts: Sendable {
    /// The portal's answer: the item, and each sync that met conflicts, newest first.
    public var json: JSONValue
    public var lines: [String]

    init(_ object: JSONObject) {
        json = .object(object)
        let syncs = (object.array("syncs") ?? []).compactMap(\.objectValue)
        let count = syncs.reduce(0) { $0 + ($1.array("conflicts")?.count ?? 0) }
        var lines = ["\(object.string("title") ?? object.string("itemId") ?? ""): \(count == 0 ? "no conflicts" : Format.count(count, "conflict"))"]
        for sync in syncs {
            let when = ISODate.formatMinutes(milliseconds: sync["at"]?.int64Value ?? 0)
            let who = sync["republish"]?.boolValue == true ? "the new version \(sync.string("username") ?? "") published" : "a sync by \(sync.string("username") ?? "")"
            lines.append("\(when) UTC, \(who) (generation \(sync["generation"]?.int64Value ?? 0)):")
            let rows = [["LAYER", "GLOBALID", "COLUMN", "BASE", "THEIRS", "OURS", "OUTCOME"]] + (sync.array("conflicts") ?? []).compactMap(\.objectValue).map { c in
                ["layer", "globalid", "column", "base", "theirs", "ours", "outcome"].map { c.string($0) ?? "" }
            }
            lines += Format.table(rows, indent: "  ")
        }
        self.lines = lines
    }
}

extension PortalClient {
    /// The conflicts of item `itemId`'s syncs and republishes; its owner or an admin may ask.
    public func conflicts(of itemId: String) async throws -> PortalConflicts {
        let item = try await self.item(itemId)
        let path = "content/users/\(FormEncoding.percentEncode(item.owner))\(item.ownerFolder.map { "/\($0)" } ?? "")/items/\(item.id)/conflicts"
        return PortalConflicts(try await call(path))
    }
}
