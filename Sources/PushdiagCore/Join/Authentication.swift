/// What an 802.11 authentication frame from the AP says of the exchange (802.11-2020 12.4 and
/// table 9-49): an exchange is done at its last frame with status 0, the AP's second (open
/// system, FT, FILS, SAE's confirm) or fourth (shared key). SAE's commit can come back with a
/// status that is a step, not a refusal: 76, an anti-clogging token asked for (the station
/// commits again with it, as a busy AP asks); 77, the group not supported (it offers another);
/// 126, the hash-to-element commit accepted; 127, the SAE-PK commit accepted.
public enum Authentication {
    /// SAE commit statuses on the way to a confirm.
    public static let saeSteps: Set<UInt16> = [76, 77, 126, 127]

    /// The frame ends authentication: status 0 on the last transaction of its algorithm; a frame
    /// whose algorithm or transaction the event did not carry, on status 0 alone.
    public static func done(algorithm: UInt16?, transaction: UInt16?, status: UInt16?) -> Bool {
        guard status ?? 0 == 0 else { return false }
        guard let algorithm, let transaction else { return true }
        return transaction == (AuthenticationAlgorithm(rawValue: algorithm)?.lastTransaction ?? 2)
    }

    /// The frame refuses: a status other than 0 that is not one of SAE's steps.
    public static func refused(algorithm: UInt16?, status: UInt16?) -> Bool {
        guard let status, status != 0 else { return false }
        return !(AuthenticationAlgorithm.sae.matches(algorithm) && saeSteps.contains(status))
    }
}
