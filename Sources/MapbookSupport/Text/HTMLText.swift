/// HTML as plain text, for summaries and pop-up descriptions shown where markup is not.
package enum HTMLText {
    /// `html` without its tags, entities for the five XML characters and `&nbsp;` decoded,
    /// trimmed. With `collapsing`, each tag counts as a space and runs of spaces and line
    /// breaks become one space (a summary on one line); without, tags vanish and line breaks
    /// stay (a description as written).
    package static func plain(_ html: String, collapsing: Bool = false) -> String {
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
        if collapsing { return out.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ") }
        return out.trimmingWhitespace()
    }
}
