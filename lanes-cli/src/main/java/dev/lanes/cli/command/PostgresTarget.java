package dev.lanes.cli.command;

import dev.lanes.postgres.PostgresOptions;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.postgresql.Driver;

/**
 * What a {@code --jdbc-url} points at, for messages that must name the server and never a password.
 *
 * <p>Passwords are masked where they stand as credentials, never as arbitrary text: the value of a {@code password=}
 * parameter or field, and the password of a URL's {@code user:password@}. A message is never searched for the
 * password's letters, so a short password ({@code a}) leaves every other {@code a} of a message as it was.
 *
 * @param server {@code host:port}, several joined by commas
 * @param database the database name
 * @param maskedUrl the URL with its password masked
 */
record PostgresTarget(String server, String database, String maskedUrl) {

    /** {@code password=VALUE} (a URL parameter, a properties field), the value up to a separator. */
    private static final Pattern PASSWORD_FIELD = Pattern.compile("(?i)(password=)[^&;,\\s)}\\]'\"]+");
    /** {@code scheme://user:PASSWORD@host}. */
    private static final Pattern URL_USER_INFO = Pattern.compile("(://[^/?#@:\\s]*:)[^/?#@\\s]+@");

    /** Null when {@code jdbcUrl} is not a PostgreSQL JDBC URL. */
    static @Nullable PostgresTarget parse(String jdbcUrl) {
        Properties parsed = Driver.parseURL(jdbcUrl, null);
        if (parsed == null) {
            return null;
        }
        return new PostgresTarget(servers(parsed), parsed.getProperty("PGDBNAME", ""), mask(jdbcUrl));
    }

    private static String servers(Properties parsed) {
        String[] hosts = parsed.getProperty("PGHOST", "localhost").split(",", -1);
        String[] ports = parsed.getProperty("PGPORT", "5432").split(",", -1);
        List<String> servers = new ArrayList<>();
        for (int i = 0; i < hosts.length; i++) {
            servers.add(hosts[i] + ":" + ports[Math.min(i, ports.length - 1)]);
        }
        return String.join(",", servers);
    }

    /**
     * The one line to show for a failure to connect or to set up: the server, the reason, no password. A server that
     * did not answer in time (it accepted the connection and then said nothing) is named with the timeout that ended
     * the wait and the masked URL.
     */
    InfrastructureUnavailableException unavailable(Throwable failure, PostgresOptions options) {
        String timeout = timeoutHit(failure, options);
        if (timeout != null) {
            return InfrastructureUnavailableException.unreachable(
                    "PostgreSQL", server, "no answer within the " + timeout + "; " + maskedUrl);
        }
        return unavailable(failure);
    }

    /** The one line to show for a failure to connect or to set up: the server, the reason, no password. */
    InfrastructureUnavailableException unavailable(Throwable failure) {
        return InfrastructureUnavailableException.unreachable("PostgreSQL", server, mask(reason(failure)));
    }

    /** The one line to show for a server that answered but refused the work: the server, the reason, no password. */
    InfrastructureUnavailableException failed(Throwable failure) {
        return InfrastructureUnavailableException.failed("PostgreSQL", server, mask(reason(failure)));
    }

    /**
     * Which of {@code options}' timeouts ended a wait for the server, or null when the failure is not a timeout: a
     * read's ({@code Read timed out}: the socket timeout); the TCP connect's, pgjdbc's login timeout ({@code Connection
     * attempt timed out.}) or the pool's wait for a connection (the connect and login timeout).
     */
    static @Nullable String timeoutHit(Throwable failure, PostgresOptions options) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (cause instanceof SocketTimeoutException && message != null && message.contains("Read timed out")) {
                return String.format(
                        Locale.ROOT,
                        "socket timeout of %d s",
                        options.socketTimeout().toSeconds());
            }
            if (cause instanceof SocketTimeoutException
                    || (cause instanceof SQLException && message != null && message.contains("timed out"))) {
                return String.format(
                        Locale.ROOT,
                        "connect and login timeout of %d s",
                        options.connectTimeout().toSeconds());
            }
        }
        return null;
    }

    /**
     * A network failure's own words ({@code Connection refused}); else the first line of the outermost SQL error's
     * message (a refused login, a missing database); else the outermost message.
     */
    static String reason(Throwable failure) {
        Throwable sql = null;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof IOException && cause.getMessage() != null) {
                return firstLine(cause.getMessage());
            }
            if (sql == null && cause instanceof SQLException) {
                sql = cause;
            }
        }
        Throwable shown = sql != null ? sql : failure;
        String message = shown.getMessage();
        return message == null ? shown.getClass().getSimpleName() : firstLine(message);
    }

    /** {@code text} with the value of every {@code password=} and the password of every URL's user info as {@code ***}. */
    static String mask(String text) {
        String fields = PASSWORD_FIELD.matcher(text).replaceAll("$1***");
        Matcher userInfo = URL_USER_INFO.matcher(fields);
        return userInfo.replaceAll("$1***@");
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        return (end < 0 ? text : text.substring(0, end)).strip();
    }
}
