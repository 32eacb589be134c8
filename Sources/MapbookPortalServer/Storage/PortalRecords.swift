import MapbookPortalAPI

/// A portal user. The password is kept only as a key-derivation hash (PasswordHash).
public struct UserRecord: Sendable, Equatable {
    public var username: String
    public var id: String
    public var fullName: String
    public var email: String
    /// `org_admin` or `org_user`, as the sharing API names roles.
    public var role: String
    public var passwordHash: String
    public var created: Int64
    public var modified: Int64
    /// An administrator disabled the account: it cannot sign in, and its tokens went.
    public var disabled = false

    public var isAdmin: Bool { role == "org_admin" }
    /// An administrator who may sign in: the organization must keep one.
    public var isActiveAdmin: Bool { isAdmin && !disabled }
}

/// A token the server issued. Only its SHA-256 is stored, so a copy of the database gives
/// nobody a way in.
public struct TokenRecord: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Accepted on requests.
        case access
        /// Exchanged for a new access token (OAuth 2).
        case refresh
        /// An OAuth 2 authorization code, used once.
        case code
        /// A browser's session with the portal's pages, kept in an HttpOnly cookie
        /// (`BrowserSession`); accepted by the API only with its CSRF token.
        case session
    }

    public var hash: String
    public var kind: Kind
    public var username: String
    public var clientId: String?
    public var referer: String?
    public var created: Int64
    public var expires: Int64
    /// For codes: the PKCE challenge (S256) and the redirect URI they were issued for.
    public var codeChallenge: String?
    public var redirectURI: String?
}

/// A group: items shared with it are visible to its members.
public struct GroupRecord: Sendable, Equatable {
    public var id: String
    public var title: String
    public var owner: String
    public var snippet: String?
    public var description: String?
    public var tags: [String]
    /// `private`, `org` or `public`: who may find the group.
    public var access: String
    public var created: Int64
    public var modified: Int64
    public var members: [String]
    /// ArcGIS's group capabilities: `updateitemcontrol` lets members update the items shared
    /// with the group (a shared update group); here, synchronise edits to them.
    public var capabilities: [String] = []

    public static let updateCapability = "updateitemcontrol"
}

/// A folder in a user's content.
public struct FolderRecord: Sendable, Equatable {
    public var id: String
    public var owner: String
    public var title: String
    public var created: Int64
}

/// An item with what the server keeps beside its public description.
public struct ItemRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Complete and visible.
        case ready
        /// A multipart upload not yet committed: invisible to everyone, removed at startup.
        case uploading
    }

    public var item: PortalItem
    public var status: Status
    /// The groups the item is shared with.
    public var groups: [String]
    /// SHA-256 of the data file (lowercase hex), sent as its ETag.
    public var sha256: String?
    /// Which stored copy of the data file is the item's (`ItemFileStore`): each new data gets
    /// a new version, so the old one stays readable until this record names the new one. Nil
    /// for data stored before versions (the disk store's `data` folder).
    public var version: String? = nil

    /// The version to ask the file store for.
    public var dataVersion: String { version ?? "data" }
}

/// A part of an upload in progress, as the store records it: any process may receive any
/// part, and the one that commits finds them all here.
public struct UploadPart: Sendable, Equatable {
    public var number: Int
    public var size: Int64
}
