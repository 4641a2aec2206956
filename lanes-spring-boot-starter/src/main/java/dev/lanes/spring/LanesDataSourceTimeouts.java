package dev.lanes.spring;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.Locale;
import javax.sql.DataSource;
import org.postgresql.ds.common.BaseDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Bounds every JDBC round trip of the application's {@link DataSource}: a stalled server, a half-open connection or a
 * lock held elsewhere fails the call after {@code lanes.postgres.socket-timeout} (30 s by default) instead of hanging a
 * command, a tracking processor or the shutdown. Sets pgjdbc's {@code socketTimeout} (whole seconds), before the data
 * source is initialised, on
 *
 * <ul>
 *   <li>a {@code HikariDataSource} (Spring Boot's default pool): as its data source property {@code socketTimeout},
 *       unless that property is set ({@code spring.datasource.hikari.data-source-properties.socketTimeout}) or the
 *       JDBC URL names {@code socketTimeout};
 *   <li>a pgjdbc data source ({@code PGSimpleDataSource} and the like): unless its socket timeout is set (not 0).
 * </ul>
 *
 * Other data sources are left as they are, and so is every one when the property is {@code 0}. Each setting is logged
 * at INFO. The driver drops a connection whose round trip timed out; the store reports the call as {@code
 * PostgresUnavailableException}. Called by Spring on the thread that creates the beans.
 */
final class LanesDataSourceTimeouts implements BeanPostProcessor {
    private static final Logger log = LoggerFactory.getLogger(LanesDataSourceTimeouts.class);
    static final String PROPERTY = "lanes.postgres.socket-timeout";
    static final String DRIVER_PROPERTY = "socketTimeout";

    private final Environment environment;

    LanesDataSourceTimeouts(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (!(bean instanceof DataSource)) {
            return bean;
        }
        Duration timeout = Binder.get(environment)
                .bind(PROPERTY, Duration.class)
                .orElse(LanesProperties.Postgres.DEFAULT_SOCKET_TIMEOUT);
        if (timeout.isZero() || timeout.isNegative()) {
            return bean;
        }
        long seconds = Math.max(1, timeout.toSeconds());
        if (ClassUtils.isPresent(
                        "com.zaxxer.hikari.HikariDataSource", getClass().getClassLoader())
                && Hikari.apply(bean, beanName, seconds)) {
            return bean;
        }
        if (ClassUtils.isPresent(
                        "org.postgresql.ds.common.BaseDataSource", getClass().getClassLoader())
                && bean instanceof BaseDataSource pg
                && pg.getSocketTimeout() == 0) {
            pg.setSocketTimeout((int) seconds);
            log.info("Lanes set socketTimeout={}s on DataSource '{}' ({})", seconds, beanName, PROPERTY);
        }
        return bean;
    }

    /** Apart, so that this class loads without HikariCP. */
    private static final class Hikari {
        /** Whether the bean is a Hikari pool (set or left alone). */
        static boolean apply(Object bean, String beanName, long seconds) {
            if (!(bean instanceof HikariDataSource hikari)) {
                return false;
            }
            String url = hikari.getJdbcUrl();
            boolean inUrl = url != null && url.toLowerCase(Locale.ROOT).contains("sockettimeout=");
            if (!inUrl && !hikari.getDataSourceProperties().containsKey(DRIVER_PROPERTY)) {
                hikari.addDataSourceProperty(DRIVER_PROPERTY, String.valueOf(seconds));
                log.info("Lanes set socketTimeout={}s on DataSource '{}' ({})", seconds, beanName, PROPERTY);
            }
            return true;
        }
    }
}
