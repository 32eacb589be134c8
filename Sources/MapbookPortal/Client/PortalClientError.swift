import MapbookPortalAPI
/// A portal request that failed outside the API's own error replies: the portal cannot be
/// reached, the sign-in is gone, the reply is not the API's, or a download is damaged. Names
/// the URL (or file) and says what to do. Errors the portal reports itself are `PortalError`s.
public struct PortalClientError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No answer: DNS, connection refused, TLS handshake, time-out. Offline, for the user.
        case unreachable
        /// The token is missing, expired or rejected, and cannot be refreshed.
        case signInRequired
        /// The answer is not what the sharing API sends (an HTML page, HTTP 404, bad JSON).
        case badResponse
        /// A download or upload went wrong (size, hash, file system).
        case transfer
        /// Something the caller gave cannot be used (a certificate file, a package).
        case usage
        /// A job the portal ran in the background (a map area taken offline) failed.
        case jobFailed
        /// The disk has not room enough for the download; the message says how much more.
        case noSpace
    }

    public var kind: Kind
    /// The URL (or the local file) involved.
    public var url: String
    /// What went wrong and, where there is one, the remedy.
    public var message: String

    public init(_ kind: Kind, url: String, message: String) {
        self.kind = kind
        self.url = url
        self.message = message
    }

    public var description: String {
        switch kind {
        case .unreachable: "cannot reach \(url): \(message)"
        default: "\(url): \(message)"
        }
    }
}
