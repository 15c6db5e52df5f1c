package io.switchboard.outbox;

import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.mariadb.jdbc.MariaDbDataSource;

/** The outbox on the local MariaDB (127.0.0.1:3306, database test, root without a password; .ci/mariadb-up.sh), polled. */
@DisplayName("Outbox on MariaDB")
class OutboxMariaDbTest extends OutboxCases {

    private final MariaDbDataSource db = mariadb();

    static MariaDbDataSource mariadb() {
        try {
            MariaDbDataSource ds = new MariaDbDataSource("jdbc:mariadb://127.0.0.1:3306/test?connectTimeout=2000");
            ds.setUser("root");
            return ds;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeEach
    void requireMariaDb() {
        requireDatabase(db, "MariaDB is needed at 127.0.0.1:3306 (database test, root without a password): start it with"
                + " 'bash .ci/mariadb-up.sh'");
    }

    @Override
    DataSource db() {
        return db;
    }

    @Override
    DataSource otherDb() {
        return OutboxH2Test.h2("other-" + UUID.randomUUID());
    }
}
