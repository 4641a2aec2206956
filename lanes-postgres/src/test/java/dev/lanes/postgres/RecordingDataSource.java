package dev.lanes.postgres;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;
import reactor.core.scheduler.Schedulers;

/** Records the thread of every JDBC call (getConnection and every method of the connection) and the SQL prepared. */
final class RecordingDataSource implements DataSource {

    /** One JDBC call: what, on which thread, and whether that thread was one of Reactor's non-blocking threads. */
    record Call(String method, String thread, boolean nonBlocking) {}

    final List<Call> calls = new CopyOnWriteArrayList<>();
    final List<String> statements = new CopyOnWriteArrayList<>();
    private final DataSource delegate;

    RecordingDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    private void record(String method) {
        calls.add(new Call(method, Thread.currentThread().getName(), Schedulers.isInNonBlockingThread()));
    }

    long statementsContaining(String fragment) {
        return statements.stream().filter(sql -> sql.contains(fragment)).count();
    }

    @Override
    public Connection getConnection() throws SQLException {
        record("getConnection");
        return wrap(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        record("getConnection");
        return wrap(delegate.getConnection(username, password));
    }

    private Connection wrap(Connection connection) {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    record(method.getName());
                    if (method.getName().startsWith("prepare") && args != null && args[0] instanceof String sql) {
                        statements.add(sql);
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return delegate.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return delegate.isWrapperFor(type);
    }
}
