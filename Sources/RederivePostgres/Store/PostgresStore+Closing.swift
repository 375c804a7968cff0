#if PostgreSQL
import Rederive

/// The command line closes the store's connections before the process exits, with ``PostgresStore/close()``.
extension PostgresStore: ClosableStore {}
#endif
