import MapbookSupport

/// `curl -sk` for tests against the portal's self-signed HTTPS: the body of an answer, or it as
/// a JSON object (every API answer is one, errors included).
public enum Curl {
    /// The output of `curl -sk --max-time 60 ARGUMENTS`; curl's failure is an error.
    @discardableResult
    public static func text(_ arguments: [String]) throws -> String {
        let (status, output) = try ExternalTools.run("/usr/bin/curl", ["-sk", "--max-time", "60"] + arguments)
        guard status == 0 else { throw ExternalTools.ToolError(output: "curl \(arguments): exit \(status): \(output)") }
        return output
    }

    public static func json(_ arguments: [String]) throws -> JSONObject {
        let text = try text(arguments)
        guard case .object(let o) = try JSONParser.parse(Array(text.utf8)) else { throw ExternalTools.ToolError(output: text) }
        return o
    }
}
