import MapbookSupport

/// Which version of an item a device holds, as the device last said (issue 34): devices send
/// it with their update checks and downloads, unless their library is set not to report.
public struct DeviceReport: Sendable, Equatable {
    public var itemId: String
    /// Made once per device library; says nothing about the device but itself.
    public var deviceId: String
    public var username: String
    /// The item's `modified` the device holds; 0 while its first download is under way.
    public var heldModified: Int64
    /// When the device last checked or downloaded, in milliseconds since 1970.
    public var lastSeen: Int64
    public var address: String?

    public init(itemId: String, deviceId: String, username: String, heldModified: Int64, lastSeen: Int64, address: String?) {
        self.itemId = itemId
        self.deviceId = deviceId
        self.username = username
        self.heldModified = heldModified
        self.lastSeen = lastSeen
        self.address = address
    }
}

/// Something that happened to an item that its page lists: a download, a sync, a new version.
public struct ItemEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case download, sync, publish
    }

    public var itemId: String
    public var at: Int64
    public var kind: Kind
    public var username: String?
    public var deviceId: String?
    public var address: String?
    /// What the event was, in a sentence (the version downloaded, the changes synchronised).
    public var detail: String

    public init(itemId: String, at: Int64, kind: Kind, username: String?, deviceId: String?, address: String?, detail: String) {
        self.itemId = itemId
        self.at = at
        self.kind = kind
        self.username = username
        self.deviceId = deviceId
        self.address = address
        self.detail = detail
    }
}

/// An administrator's action as the audit log keeps it: who, what, to what, when, from where.
public struct AuditEntry: Sendable, Equatable {
    public var at: Int64
    public var username: String
    /// What was done, as a short verb phrase ("added user", "required version").
    public var action: String
    /// What it was done to: a user name, a group's or an item's id and title.
    public var target: String
    public var address: String?
    public var detail: String
    /// Its number in the log, in the order entries were recorded (the store gives it).
    public var sequence: Int64 = 0

    public init(at: Int64, username: String, action: String, target: String, address: String?, detail: String) {
        self.at = at
        self.username = username
        self.action = action
        self.target = target
        self.address = address
        self.detail = detail
    }
}

/// A replica's last sync of an editable item, with the conflicts it met: what the item page
/// shows of the field's copies (issue 34).
public struct ReplicaSync: Sendable, Equatable {
    /// One conflict: the feature, the column, the values on each side and what became of it.
    public struct Conflict: Sendable, Equatable {
        public var layer: String
        public var globalid: String
        public var column: String
        /// The values as text: the one both sides last agreed on, the portal's, the device's.
        public var base: String
        public var theirs: String
        public var ours: String
        /// `ours` (the device's value won), `manual` (the portal's kept, for a person to
        /// choose: pending), `deleted` (an update met a delete).
        public var outcome: String

        public init(layer: String, globalid: String, column: String, base: String, theirs: String, ours: String, outcome: String) {
            self.layer = layer
            self.globalid = globalid
            self.column = column
            self.base = base
            self.theirs = theirs
            self.ours = ours
            self.outcome = outcome
        }
    }

    public var itemId: String
    public var replica: String
    public var username: String
    public var deviceId: String?
    /// When, in milliseconds since 1970.
    public var at: Int64
    /// The copy's generation after the sync.
    public var generation: Int64
    /// Changes the sync applied.
    public var changes: Int
    public var conflicts: [Conflict]

    public init(itemId: String, replica: String, username: String, deviceId: String?, at: Int64, generation: Int64, changes: Int, conflicts: [Conflict]) {
        self.itemId = itemId
        self.replica = replica
        self.username = username
        self.deviceId = deviceId
        self.at = at
        self.generation = generation
        self.changes = changes
        self.conflicts = conflicts
    }
}

extension ReplicaSync {
    static let conflictKeys = ["layer", "globalid", "column", "base", "theirs", "ours", "outcome"]

    /// The conflicts as the stores keep them: a JSON array of objects.
    static func conflictsJSON(_ conflicts: [Conflict]) -> String {
        JSONWriter.string(
            .array(conflicts.map { c in
                .object(JSONObject(Array(zip(conflictKeys, [c.layer, c.globalid, c.column, c.base, c.theirs, c.ours, c.outcome].map { JSONValue.string($0) }))))
            }), style: .compact)
    }

    static func conflicts(fromJSON text: String) -> [Conflict] {
        ((try? JSONParser.parse(text))?.arrayValue ?? []).compactMap { value in
            guard let o = value.objectValue else { return nil }
            let v = conflictKeys.map { o[$0]?.stringValue ?? "" }
            return Conflict(layer: v[0], globalid: v[1], column: v[2], base: v[3], theirs: v[4], ours: v[5], outcome: v[6])
        }
    }
}
