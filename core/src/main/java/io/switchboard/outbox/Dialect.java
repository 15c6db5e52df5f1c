package io.switchboard.outbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What differs between the databases the outbox runs on: the schema script and the lowest version with SKIP LOCKED. */
enum Dialect {
    POSTGRESQL("postgresql", "PostgreSQL 9.5", 9, 5),
    MARIADB("mariadb", "MariaDB 10.6", 10, 6),
    MYSQL("mariadb", "MySQL 8.0", 8, 0),
    H2("h2", "H2 2.0", 2, 0);

    /** "ON switchboard_outbox" where the table itself is named (a trigger's or an index's table), not a longer name. */
    private static final java.util.regex.Pattern ON_TABLE = java.util.regex.Pattern.compile("ON switchboard_outbox(?![A-Za-z0-9_])");

    private final String script;
    private final String lowest;
    private final int major;
    private final int minor;

    Dialect(String script, String lowest, int major, int minor) {
        this.script = script;
        this.lowest = lowest;
        this.major = major;
        this.minor = minor;
    }

    /** The resource with this database's schema, for Flyway and Liquibase users. */
    String scriptResource() {
        return "io/switchboard/outbox/schema-" + script + ".sql";
    }

    /** {@return the dialect of the database behind {@code md}}; refused with the supported ones when unknown or too old. */
    static Dialect of(DatabaseMetaData md, String table) throws SQLException {
        String product = md.getDatabaseProductName();
        String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
        String version = md.getDatabaseProductVersion();
        Dialect d;
        if (name.contains("postgresql")) {
            d = POSTGRESQL;
        } else if (name.contains("mariadb") || (version != null && version.toLowerCase(Locale.ROOT).contains("mariadb"))) {
            d = MARIADB;
        } else if (name.contains("mysql")) {
            d = MYSQL;
        } else if (name.equals("h2")) {
            d = H2;
        } else {
            throw new OutboxException("Outbox table '" + table + "': database '" + product + "' " + version + " is not supported;"
                    + " the outbox runs on PostgreSQL, MariaDB 10.6+, MySQL 8.0+ and H2 2.x (it needs SELECT .. FOR UPDATE"
                    + " SKIP LOCKED)");
        }
        int maj = md.getDatabaseMajorVersion();
        int min = md.getDatabaseMinorVersion();
        if (maj < d.major || (maj == d.major && min < d.minor)) {
            throw new OutboxException("Outbox table '" + table + "': " + product + " " + version + " is too old; the outbox"
                    + " needs " + d.lowest + " or later (SELECT .. FOR UPDATE SKIP LOCKED)");
        }
        return d;
    }

    /** The schema's statements for {@code table}: the script with its comments left out and the table's name put in. */
    List<String> schema(String table) {
        String text;
        try (InputStream in = Dialect.class.getClassLoader().getResourceAsStream(scriptResource())) {
            if (in == null) {
                throw new IllegalStateException("resource " + scriptResource() + " is missing from switchboard-core");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("could not read " + scriptResource(), e);
        }
        StringBuilder kept = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.startsWith("--")) {
                kept.append(line).append('\n');
            }
        }
        String simple = table.replace('.', '_');
        List<String> statements = new ArrayList<>();
        for (String statement : kept.toString().split(";\\s*\n\\s*\n")) {
            String s = statement.strip();
            if (s.endsWith(";")) {
                s = s.substring(0, s.length() - 1);
            }
            if (!s.isEmpty()) {
                // qualified names where a table is named, simple names for the index, function, trigger and channel
                s = ON_TABLE.matcher(s).replaceAll(java.util.regex.Matcher.quoteReplacement("ON " + table))
                        .replace("TABLE IF NOT EXISTS switchboard_outbox_lock", "TABLE IF NOT EXISTS " + table + "_lock")
                        .replace("TABLE IF NOT EXISTS switchboard_outbox_parked", "TABLE IF NOT EXISTS " + table + "_parked")
                        .replace("TABLE IF NOT EXISTS switchboard_outbox ", "TABLE IF NOT EXISTS " + table + " ")
                        .replace("FUNCTION switchboard_outbox_notify", "FUNCTION " + table + "_notify")
                        .replace("switchboard_outbox", simple);
                statements.add(s);
            }
        }
        return statements;
    }

    /**
     * The statements that bring a table made before the relay kept attempts (columns {@code attempts},
     * {@code retry_at_millis}, {@code last_error}, {@code written_micros}, the index on {@code (bucket, sent_micros)} and the
     * {@code <table>_parked} table) up to the current schema.
     */
    List<String> upgrade(String table) {
        String simple = table.replace('.', '_');
        List<String> statements = new ArrayList<>();
        statements.add("ALTER TABLE " + table + " ADD COLUMN attempts INTEGER");
        statements.add("ALTER TABLE " + table + " ADD COLUMN retry_at_millis BIGINT");
        statements.add("ALTER TABLE " + table + " ADD COLUMN last_error VARCHAR(1000)");
        statements.add("ALTER TABLE " + table + " ADD COLUMN written_micros BIGINT");
        statements.add("CREATE INDEX " + simple + "_bucket ON " + table + " (bucket, sent_micros)");
        for (String s : schema(table)) {
            if (s.contains(table + "_parked")) {
                statements.add(s);
            }
        }
        return statements;
    }

    /** {@return the NOTIFY channel of {@code table} (PostgreSQL)} */
    static String channel(String table) {
        return table.replace('.', '_');
    }
}
