import Synchronization

/// The options of a page's select lists (the lists' sort field and order), rendered once for
/// each choice and kept: like the item listings (`ItemListings`), each option costs Mustache a
/// dynamic cast per value, and the sort lists' nine options cost more than the rest of a
/// search page's template. Kept are the lists' names times their options: a few dozen.
final class OptionLists: Sendable {
    private let kept = Mutex<[String: String]>([:])

    /// The options of the list `name` with `selected` chosen (none when it is not one of
    /// them), from `render` of the `options` template's values.
    func html(_ name: String, _ options: [(value: String, label: String)], selected: String, render: ([String: Any]) -> String) -> String {
        let chosen = options.contains { $0.value == selected } ? selected : ""
        let key = name + "\u{0}" + chosen
        if let html = kept.withLock({ $0[key] }) { return html }
        let html = render(["options": options.map { ["value": $0.value, "label": $0.label, "selected": $0.value == chosen] as [String: Any] }])
        kept.withLock { $0[key] = html }
        return html
    }
}
