package io.switchboard.outbox;

import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.DisplayName;

/** The outbox on the embedded H2 database. */
@DisplayName("Outbox on H2")
class OutboxH2Test extends OutboxCases {

    private final JdbcDataSource db = h2("outbox-" + UUID.randomUUID());
    private final JdbcDataSource other = h2("other-" + UUID.randomUUID());

    static JdbcDataSource h2(String name) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        ds.setUser("sa");
        return ds;
    }

    @Override
    DataSource db() {
        return db;
    }

    @Override
    DataSource otherDb() {
        return other;
    }
}
