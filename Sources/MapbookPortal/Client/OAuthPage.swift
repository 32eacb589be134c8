import MapbookSupport

/// What the portal's OAuth pages say, read the way Esri's own clients read them: the
/// `var oAuthInfo = {...};` object in a script (the sign-in form's `oauth_state`, or the
/// `messages` of a refused sign-in) and the `<title>SUCCESS code=...</title>` of the
/// out-of-band page.
struct OAuthPage {
    let html: String

    /// The `oAuthInfo` object, when the page has one that is JSON.
    var info: JSONObject? {
        guard let marker = html.firstRange(of: "var oAuthInfo") else { return nil }
        let rest = html[marker.upperBound...]
        guard let open = rest.firstIndex(of: "{") else { return nil }
        // The object ends where the script does; the `;` and whitespace before it are not JSON.
        let end = rest[open...].firstRange(of: "</script>")?.lowerBound ?? rest.endIndex
        var text = Substring(rest[open..<end])
        while let last = text.last, last == ";" || last == " " || last == "\n" || last == "\r" || last == "\t" { text.removeLast() }
        return (try? JSONParser.parse(String(text)))?.objectValue
    }

    /// The sign-in form's state, to post back with the user name and password.
    var oauthState: String? { info?.string("oauth_state") }

    /// Why the portal refused the sign-in (`messages`), or the page's `error`.
    var messages: [String] {
        guard let info else { return [] }
        var found = info.strings("messages") ?? []
        if let error = info.string("error") { found.append(error) }
        return found
    }

    /// The authorization code of the out-of-band success page.
    var successCode: String? {
        guard let start = html.firstRange(of: "<title>SUCCESS code=") else { return info?.string("code") }
        let rest = html[start.upperBound...]
        guard let end = rest.firstRange(of: "</title>") else { return nil }
        let code = rest[..<end.lowerBound].filter { !$0.isWhitespace }
        return code.isEmpty ? nil : String(code)
    }
}
