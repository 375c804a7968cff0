/// The version of rederive, recorded with every schema migration it applies.
public enum RederiveVersion {
    public static let current = "0.1.0"
}
