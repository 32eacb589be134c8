import MapbookPackager
import Testing

/// The `ProjectError` a build stops with, or nil if it succeeds; any other error is recorded as
/// an issue (a refusal must carry a kind tests can switch on).
func projectRefusal(_ build: () throws -> Void) -> ProjectError? {
    do {
        try build()
        return nil
    } catch let error as ProjectError {
        return error
    } catch {
        Issue.record("not a ProjectError: \(error)")
        return nil
    }
}
