package dev.lanes.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.Driver;
import org.postgresql.ds.common.BaseDataSource;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Runs JDBC work on a bounded scheduler of its own (one thread per pooled connection) and translates SQL failures. The
 * caller's thread, a lane's non-blocking worker, only subscribes: it never waits for the database.
 */
final class Jdbc implements AutoCloseable {
    /** Threads the store's scheduler may have queued per worker before it rejects work. */
    private static final int QUEUED_TASKS_PER_THREAD = 10_000;

    static final String SCHEDULER_NAME = "lanes-postgres";

    /** Blocking work on one borrowed connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;
    private final Scheduler scheduler;
    private final String server;
    private final @Nullable HikariDataSource ownedPool;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Jdbc(DataSource dataSource, int threads, String server, @Nullable HikariDataSource ownedPool) {
        this.dataSource = dataSource;
        this.scheduler = Schedulers.newBoundedElastic(threads, QUEUED_TASKS_PER_THREAD, SCHEDULER_NAME, 60, true);
        this.server = server;
        this.ownedPool = ownedPool;
    }

    /** Over a caller's data source, which the caller closes; {@code threads} should match its pool size. */
    static Jdbc over(DataSource dataSource, int threads) {
        Objects.requireNonNull(dataSource, "dataSource");
        return new Jdbc(dataSource, threads, describe(dataSource), null);
    }

    /** Threads for a caller's data source: a Hikari pool's maximum size, else the default pool size. */
    static int threadsFor(DataSource dataSource) {
        return dataSource instanceof HikariDataSource hikari
                ? Math.max(1, hikari.getMaximumPoolSize())
                : PostgresOptions.DEFAULT.poolSize();
    }

    /**
     * Opens a pool of its own and checks that one connection can be made.
     *
     * @throws IllegalArgumentException if the URL is not a PostgreSQL JDBC URL
     * @throws PostgresUnavailableException if the server cannot be reached or does not answer within the connect and
     *     login timeout (a server that accepts the connection and never answers included), naming host, port and
     *     the timeout
     * @throws PostgresStoreException if the server refuses the login or the database
     */
    static Jdbc connect(String jdbcUrl, String user, @Nullable String password, PostgresOptions options) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(options, "options");
        String server = describe(jdbcUrl);
        HikariConfig config = new HikariConfig();
        config.setPoolName(SCHEDULER_NAME);
        config.setDriverClassName(Driver.class.getName());
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(options.poolSize());
        config.setMinimumIdle(options.poolSize());
        long connectMillis = options.connectTimeout().toMillis();
        config.setConnectionTimeout(connectMillis);
        config.setValidationTimeout(Math.max(250, Math.min(5_000, connectMillis / 2)));
        // one attempt at start: an unreachable server fails construction at once instead of a first command later
        config.setInitializationFailTimeout(1);
        config.addDataSourceProperty(
                "connectTimeout", Long.toString(options.connectTimeout().toSeconds()));
        config.addDataSourceProperty(
                "loginTimeout", Long.toString(options.connectTimeout().toSeconds()));
        config.addDataSourceProperty(
                "socketTimeout", Long.toString(options.socketTimeout().toSeconds()));
        config.addDataSourceProperty("tcpKeepAlive", "true");
        config.addDataSourceProperty("ApplicationName", options.applicationName());
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException failed) {
            Throwable cause = failed.getCause() != null ? failed.getCause() : failed;
            String message = "Cannot connect to PostgreSQL at " + server + " as '" + user + "'";
            if (cause instanceof SQLException sql && !isUnavailable(sql)) {
                throw new PostgresStoreException(message + ": " + cause.getMessage(), failed);
            }
            throw new PostgresUnavailableException(
                    message + " within the connect and login timeout of "
                            + options.connectTimeout().toSeconds() + " s: " + cause.getMessage(),
                    failed);
        }
        return new Jdbc(pool, options.poolSize(), server, pool);
    }

    DataSource dataSource() {
        return dataSource;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** {@code host:port/database} (or what is known of the data source), for messages. */
    String server() {
        return server;
    }

    /** The work, run on this store's scheduler when subscribed; SQL failures translated. */
    <T> Mono<T> call(String operation, Work<T> work) {
        return Mono.fromCallable(() -> execute(operation, work)).subscribeOn(scheduler);
    }

    /** The work, run on the calling thread (blocking); SQL failures translated. */
    <T> T execute(String operation, Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return work.run(connection);
        } catch (SQLException e) {
            throw translate(operation, e);
        }
    }

    RuntimeException translate(String operation, SQLException e) {
        return translate(server, operation, e);
    }

    /** The store exception for {@code e}, naming the server, the operation and the SQLState. */
    static RuntimeException translate(String server, String operation, SQLException e) {
        String state = e.getSQLState();
        String detail =
                " while " + operation + (state == null ? "" : " (SQLState " + state + ")") + ": " + e.getMessage();
        if (isUnavailable(e)) {
            return new PostgresUnavailableException("PostgreSQL at " + server + " is unavailable" + detail, e);
        }
        if (state != null && state.startsWith("22")) {
            return new EventSerializationException("PostgreSQL at " + server + " refused the data" + detail, e);
        }
        return new PostgresStoreException("PostgreSQL at " + server + " failed" + detail, e);
    }

    /** Connection-level or transient failures that a retry on another connection (or later) may cure. */
    static boolean isUnavailable(SQLException e) {
        if (e instanceof SQLTransientException || e instanceof SQLRecoverableException) {
            return true;
        }
        String state = e.getSQLState();
        if (state == null) {
            return false;
        }
        return state.startsWith("08") // connection exception
                || state.startsWith("53") // insufficient resources (too many connections, ...)
                || state.equals("57P01") // admin shutdown (connection terminated)
                || state.equals("57P02") // crash shutdown
                || state.equals("57P03") // cannot connect now (starting up)
                || state.equals("57014") // query cancelled (statement timeout)
                || state.equals("40001") // serialization failure
                || state.equals("40P01"); // deadlock
    }

    /** {@code host:port/database} of a JDBC URL, without its query (which may hold a password). */
    static String describe(String jdbcUrl) {
        Properties parsed = Driver.parseURL(jdbcUrl, null);
        if (parsed == null) {
            throw new IllegalArgumentException(
                    "Not a valid PostgreSQL JDBC URL (expected jdbc:postgresql://host:port/database): '"
                            + withoutQuery(jdbcUrl) + "'");
        }
        String[] hosts = parsed.getProperty("PGHOST", "localhost").split(",", -1);
        String[] ports = parsed.getProperty("PGPORT", "5432").split(",", -1);
        StringBuilder described = new StringBuilder();
        for (int i = 0; i < hosts.length; i++) {
            if (i > 0) {
                described.append(',');
            }
            String host = hosts[i];
            described
                    .append(host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host)
                    .append(':')
                    .append(i < ports.length ? ports[i] : ports[ports.length - 1]);
        }
        return described.append('/').append(parsed.getProperty("PGDBNAME", "")).toString();
    }

    /** {@code host:port/database} of a Hikari or pgjdbc data source, else its class name. */
    static String describe(DataSource dataSource) {
        try {
            if (dataSource instanceof HikariDataSource hikari && hikari.getJdbcUrl() != null) {
                return describe(hikari.getJdbcUrl());
            }
            if (dataSource instanceof BaseDataSource pg) {
                return describe(pg.getUrl());
            }
        } catch (RuntimeException notParsable) {
            // fall through: name the data source instead
        }
        return "the data source " + dataSource.getClass().getName();
    }

    private static String withoutQuery(String jdbcUrl) {
        int query = jdbcUrl.indexOf('?');
        return query < 0 ? jdbcUrl : jdbcUrl.substring(0, query) + "?...";
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Disposes the scheduler and closes the pool if this opened it. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            scheduler.dispose();
            if (ownedPool != null) {
                ownedPool.close();
            }
        }
    }
}
