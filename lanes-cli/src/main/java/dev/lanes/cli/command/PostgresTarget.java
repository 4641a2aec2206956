package dev.lanes.cli.command;

import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.postgresql.Driver;

/**
 * What a {@code --jdbc-url} points at, for messages that must name the server and never a password.
 *
 * @param server {@code host:port}, several joined by commas
 * @param database the database name
 * @param secrets the passwords given (in the URL or as an option): scrubbed from every message shown
 */
record PostgresTarget(String server, String database, List<String> secrets) {

    PostgresTarget {
        secrets = List.copyOf(secrets);
    }

    /** Null when {@code jdbcUrl} is not a PostgreSQL JDBC URL. */
    static @Nullable PostgresTarget parse(String jdbcUrl, @Nullable String password) {
        Properties parsed = Driver.parseURL(jdbcUrl, null);
        if (parsed == null) {
            return null;
        }
        List<String> secrets = new ArrayList<>();
        addSecret(secrets, parsed.getProperty("password"));
        addSecret(secrets, password);
        return new PostgresTarget(servers(parsed), parsed.getProperty("PGDBNAME", ""), secrets);
    }

    private static void addSecret(List<String> secrets, @Nullable String secret) {
        if (secret != null && !secret.isEmpty()) {
            secrets.add(secret);
        }
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

    /** The one line to show for a failure to connect or to set up: the server, the reason, no password. */
    InfrastructureUnavailableException unavailable(Throwable failure) {
        return InfrastructureUnavailableException.unreachable("PostgreSQL", server, scrub(reason(failure)));
    }

    /** The one line to show for a server that answered but refused the work: the server, the reason, no password. */
    InfrastructureUnavailableException failed(Throwable failure) {
        return InfrastructureUnavailableException.failed("PostgreSQL", server, scrub(reason(failure)));
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

    private String scrub(String text) {
        String scrubbed = text;
        for (String secret : secrets) {
            scrubbed = scrubbed.replace(secret, "***");
        }
        return scrubbed;
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        return (end < 0 ? text : text.substring(0, end)).strip();
    }
}
