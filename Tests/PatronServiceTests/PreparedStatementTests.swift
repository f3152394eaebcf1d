import Foundation
import Shared
import Testing

@testable import PatronService

/// Prepared statements spell their SQL out (no interpolation): what they spell must match the state machine.
@Suite struct PreparedStatementTests {
    @Test func theProfileCountsExactlyTheLoanStates() {
        let sql = ProfilePostgresRepository.ProfileStatement.sql
        let listed = BookState.allCases.filter { sql.contains("'\($0.rawValue)'") && $0 != .waitingForLoan && $0 != .loanOffered }
        #expect(Set(listed) == BookState.onLoan)
    }
}
