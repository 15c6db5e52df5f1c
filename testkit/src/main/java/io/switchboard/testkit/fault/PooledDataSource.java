package io.switchboard.testkit.fault;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A small pool over {@link DriverManager} for tests: closing a connection resets it (rollback, auto-commit on)
 * and keeps it for the next caller; a connection that fails a reset is dropped. Without it each
 * {@code getConnection()} of a plain data source opens a new database session, which is what limits a test's
 * handlers that take two or three connections a message.
 */
public final class PooledDataSource implements DataSource, AutoCloseable {
    private final String url;
    private final String user;
    private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();

    /**
     * A pool of connections to {@code url} as {@code user} (no password), made as they are asked for.
     *
     * @param url the JDBC URL
     * @param user the user
     */
    public PooledDataSource(String url, String user) {
        this.url = url;
        this.user = user;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection real = idle.poll();
        if (real == null) {
            real = DriverManager.getConnection(url, user, "");
        }
        Connection physical = real;
        boolean[] closed = {false};
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        if (!closed[0]) {
                            closed[0] = true;
                            giveBack(physical);
                        }
                        return null;
                    }
                    if (method.getName().equals("isClosed")) {
                        return closed[0] || physical.isClosed();
                    }
                    try {
                        return method.invoke(physical, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private void giveBack(Connection physical) {
        try {
            if (!physical.getAutoCommit()) {
                physical.rollback();
                physical.setAutoCommit(true);
            }
            idle.offer(physical);
        } catch (SQLException e) {
            try {
                physical.close();
            } catch (SQLException ignored) {
                // dropped either way
            }
        }
    }

    /** Closes the idle connections. */
    @Override
    public void close() {
        for (Connection c; (c = idle.poll()) != null; ) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing anyway
            }
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return DriverManager.getConnection(url, username, password);
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("Not a wrapper of " + iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
