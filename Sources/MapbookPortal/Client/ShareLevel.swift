/// Who sees a published item, as `mapbook portal publish --share` names it.
public enum ShareLevel: String, Sendable, CaseIterable {
    /// The owner only (and administrators).
    case `private`
    /// Everyone signed in to the organization.
    case org
    /// Everyone, signed in or not.
    case `public`
}
