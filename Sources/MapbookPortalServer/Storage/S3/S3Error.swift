import MapbookSupport

/// What the object store answered, for callers and tests to switch on.
public struct S3Error: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Hashable {
        /// The endpoint or bucket given cannot be used.
        case badConfiguration
        /// No answer: the server is down, refused the connection or timed out.
        case unreachable
        /// The credentials were refused (403: wrong key, wrong secret, clock skew).
        case denied
        /// The server answered with an error status (its S3 code in the message).
        case failed
        /// The answer cannot be read.
        case badResponse
    }

    public var kind: Kind
    /// The HTTP status, 0 when there was no answer.
    public var status: Int
    public var message: String
    public var description: String { message }

    static func from(status: Int, body: [UInt8], doing: String) -> S3Error {
        let parsed: XMLElement? = try? XMLDocumentIO.parse(body, path: "S3 error")
        let code: String = parsed?.child("Code")?.text ?? "HTTP \(status)"
        let message: String? = parsed?.child("Message")?.text
        let detail = message.map { ": \($0)" } ?? ""
        return S3Error(kind: status == 403 ? .denied : .failed, status: status, message: "\(doing): \(code)\(detail)")
    }
}
