/// HTML as plain text, for summaries and pop-up descriptions shown where markup is not.
package enum HTMLText {
    /// `html` without its tags, entities for the five XML characters and `&nbsp;` decoded,
    /// trimmed. With `collapsing`, each tag counts as a space and runs of spaces and line
    /// breaks become one space (a summary on one line); without, tags vanish and line breaks
    /// stay (a description as written).
    package static func plain(_ html: String, collapsing: Bool = false) -> String {
        // Most text has neither tags nor entities: only its spaces are tidied.
        if !html.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }) {
            return collapsing ? collapsed(html) : html.trimmingWhitespace()
        }
        var out = ""
        var inTag = false
        for c in html {
            if c == "<" { inTag = true; continue }
            if c == ">" && inTag {
                inTag = false
                if collapsing { out.append(" ") }
                continue
            }
            if !inTag { out.append(c) }
        }
        for (entity, c) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            out = out.replacingAll(entity, with: c)
        }
        return collapsing ? collapsed(out) : out.trimmingWhitespace()
    }

    /// `text` with every run of spaces, tabs and line ends made one space, none at the ends.
    private static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
