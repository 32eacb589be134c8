import MapbookSupport

/// An error as the ArcGIS REST sharing API reports it: HTTP 200 with
/// `{"error": {"code", "messageCode", "message", "details"}}`. The server sends these; the
/// client reads them back into this type.
public struct PortalError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var messageCode: String?
    public var message: String
    public var details: [String]

    public init(code: Int, messageCode: String? = nil, message: String, details: [String] = []) {
        self.code = code
        self.messageCode = messageCode
        self.message = message
        self.details = details
    }

    public var description: String {
        var text = "\(message) (\(code)\(messageCode.map { " \($0)" } ?? ""))"
        if !details.isEmpty { text += ": " + details.joined(separator: "; ") }
        return text
    }

    /// The token is unknown, expired or revoked.
    public static let invalidToken = PortalError(code: 498, messageCode: "GWM_0011", message: "Invalid token.")
    /// The resource needs a signed-in user.
    public static let tokenRequired = PortalError(code: 499, messageCode: "GWM_0003", message: "Token Required.")
    /// The signed-in user may not see or do this.
    public static let forbidden = PortalError(
        code: 403, messageCode: "GWM_0003", message: "You do not have permissions to access this resource or perform this action.")

    /// The item does not exist, or the caller may not know that it does.
    public static func itemNotFound(_ id: String) -> PortalError {
        PortalError(code: 400, messageCode: "CONT_0001", message: "Item does not exist or is inaccessible.", details: [id])
    }

    /// A request the server cannot act on, with what is wrong in `details`.
    public static func badRequest(_ message: String, details: [String] = []) -> PortalError {
        PortalError(code: 400, message: message, details: details)
    }

    public var jsonValue: JSONValue {
        var error: JSONObject = ["code": .integer(Int64(code))]
        if let messageCode { error["messageCode"] = .string(messageCode) }
        error["message"] = .string(message)
        error["details"] = .array(details.map { .string($0) })
        return .object(["error": .object(error)])
    }

    /// The error in a response body, if it is one.
    public init?(response: JSONValue) {
        guard case .object(let body) = response, case .object(let error)? = body["error"] else { return nil }
        code = error["code"]?.intValue ?? 500
        messageCode = error["messageCode"]?.stringValue
        message = error["message"]?.stringValue ?? "The portal reported an error."
        details = error["details"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
