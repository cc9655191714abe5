package io.sluice.cachestore.jdbc.internal;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/**
 * Which database errors a retry may cure: lost or refused connections, serialization failures and
 * deadlocks, a server shutting down or out of resources. A constraint violation, a bad column or a
 * value that does not fit is not transient: retrying it would fail the same way.
 */
public final class TransientErrors {

    private TransientErrors() {
    }

    /** Whether the error, or one of its causes, is transient. */
    public static boolean isTransient(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientException || t instanceof SQLRecoverableException) {
                return true;
            }
            if (t instanceof SQLException sql && isTransientState(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * PostgreSQL SQLSTATEs: class 08 (connection exception), 40001 (serialization failure), 40P01
     * (deadlock), class 53 (insufficient resources), 57P01-57P03 (admin/crash shutdown, cannot connect now).
     */
    static boolean isTransientState(String state) {
        if (state == null) {
            return false;
        }
        return state.startsWith("08") || state.equals("40001") || state.equals("40P01") || state.startsWith("53")
                || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
    }
}
