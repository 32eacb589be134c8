/// Why a synchronisation was refused or could not complete, with a kind code and tests switch
/// on. Nothing was changed on the side that refused.
public struct SyncError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The device's layers and the portal's copy differ in columns or edit rules.
        case schemaMismatch
        /// A sync was sent and its answer not yet applied: edits wait until `mapbook sync`
        /// runs again and completes it.
        case syncInProgress
        /// A sync message (request or answer) that cannot be read.
        case damaged
        /// The package did not come from a portal, or the portal has no editable copy of it.
        case notSynchronised
        /// An attachment's bytes are not there: not uploaded before the sync (portal), or not
        /// downloaded before its answer is applied (device).
        case missingAttachment
        /// An attachment larger than its layer allows.
        case tooLarge
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
