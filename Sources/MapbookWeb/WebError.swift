import HTTPTypes
import MapbookEditing
import MapbookLibrary
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import MapbookViewer

/// A failure as a web client sees it: an HTTP status, and a JSON body with a `kind` that
/// pages and scripts switch on (the same kinds the command line's errors carry) and a
/// message for people.
public struct WebError: Error, Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var kind: String
    public var message: String
    public var choices: [String] = []
    /// The field an edit was refused for.
    public var field: String?

    public init(status: HTTPResponse.Status, kind: String, message: String, choices: [String] = [], field: String? = nil) {
        self.status = status
        self.kind = kind
        self.message = message
        self.choices = choices
        self.field = field
    }

    public var description: String { message }

    static func notFound(_ what: String) -> WebError {
        WebError(status: .notFound, kind: "notFound", message: what)
    }

    static func badRequest(_ message: String, kind: String = "invalidRequest") -> WebError {
        WebError(status: .badRequest, kind: kind, message: message)
    }

    /// Any error as a web error: the libraries' errors keep their kinds; a name that matches
    /// nothing is a 404, a value that is not one a 400, a package that cannot be read a 422.
    public static func from(_ error: any Error) -> WebError {
        switch error {
        case let error as WebError:
            return error
        case let error as ViewerError:
            let status: HTTPResponse.Status
            switch error.kind {
            case .unknownMap, .unknownLayer, .unknownBookmark, .noLocator: status = .notFound
            case .invalidView, .unknownPlace: status = .badRequest
            case .noMaps, .unreadableLayer, .package: status = .unprocessableContent
            }
            return WebError(status: status, kind: kindName(error.kind), message: error.message, choices: error.choices)
        case let error as EditError:
            return WebError(status: .unprocessableContent, kind: kindName(error.kind), message: error.message, field: error.field.isEmpty ? nil : error.field)
        case let error as PackageExpiredError:
            return WebError(status: .forbidden, kind: "packageExpired", message: "\(error)")
        case let error as SyncError:
            // An edit while a sync's answer is outstanding (or a sync message unreadable).
            return WebError(status: .conflict, kind: error.kind.rawValue, message: "\(error)")
        case let error as PortalError:
            // The portal refused (its own error reply): passed on as the portal said it.
            return WebError(status: .badGateway, kind: error.messageCode ?? "portalError", message: "the portal says: \(error)")
        case let error as PackageFormatError:
            return WebError(status: .unprocessableContent, kind: kindName(error.kind), message: "\(error)")
        default:
            return WebError(status: .internalServerError, kind: "failed", message: "\(error)")
        }
    }

    /// An enum case's name without its associated values: `package(.damaged)` is `damaged`.
    static func kindName(_ kind: Any) -> String {
        var text = String(describing: kind)
        if let open = text.firstIndex(of: "("), text.hasSuffix(")") {
            text = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
            if text.hasPrefix(".") { text.removeFirst() }
        }
        return text
    }

    var json: JSONValue {
        var error: JSONObject = ["kind": .string(kind), "message": .string(message), "status": .int(Int(status.code))]
        if !choices.isEmpty { error["choices"] = .array(choices.map { .string($0) }) }
        if let field { error["field"] = .string(field) }
        return .object(["error": .object(error)])
    }
}
