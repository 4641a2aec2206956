package dev.lanes.spring.web;

import dev.lanes.command.WaitStage;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The {@code lanes.web.*} settings of the HTTP command endpoint. Checked when bound: a value out of range fails the
 * start naming the property and the value.
 *
 * @param enabled Whether the command endpoint and its OpenAPI document are served (when the application is a Spring MVC
 *     or WebFlux web application).
 * @param basePath Path under which commands are posted: POST {base-path}/{aggregate}/{id}/{command}; the OpenAPI
 *     document is {base-path}/openapi.json. Starts with a slash, does not end with one.
 * @param defaultWait Stage a request waits for when it has no wait parameter: SENT, PROCESSED or PROJECTED.
 * @param timeout How long a request waits for its stage; unset: lanes.command-timeout.
 * @param retryAfter The Retry-After of a 503 answer (an overloaded bus, a full lane, a stop, a timeout), in whole
 *     seconds, at least 1s.
 * @param maxBodySize The largest command body taken; a larger one is answered 413 without being read further. At least
 *     1 byte.
 * @param tenantHeader The request header that names the tenant of the command's aggregate (its {@code AggregateId}
 *     tenant, stored with its events); a request without it is answered 400. Unset: every command goes to the default
 *     tenant. Set it only behind a gateway that authenticates the header.
 */
@ConfigurationProperties("lanes.web")
public record LanesWebProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("/commands") String basePath,
        @DefaultValue("PROCESSED") WaitStage defaultWait,
        @Nullable Duration timeout,
        @DefaultValue("1s") Duration retryAfter,
        @DefaultValue("1MB") DataSize maxBodySize,
        @Nullable String tenantHeader) {

    /**
     * @throws IllegalArgumentException naming the property and the value when the base path does not start with a slash
     *     or ends with one, the timeout is not positive, Retry-After is under a second, the body limit is out of range
     *     or the tenant header is blank
     */
    /** The body limit in bytes. */
    int maxBodyBytes() {
        return (int) maxBodySize.toBytes();
    }

    public LanesWebProperties {
        Objects.requireNonNull(basePath, "lanes.web.base-path");
        if (!basePath.startsWith("/") || basePath.endsWith("/") || basePath.contains("{")) {
            throw new IllegalArgumentException("lanes.web.base-path must start with '/', not end with '/' and hold no"
                    + " '{': '" + basePath + "'");
        }
        Objects.requireNonNull(defaultWait, "lanes.web.default-wait");
        if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
            throw new IllegalArgumentException("lanes.web.timeout must be positive: " + timeout);
        }
        Objects.requireNonNull(retryAfter, "lanes.web.retry-after");
        if (retryAfter.getSeconds() < 1) {
            throw new IllegalArgumentException("lanes.web.retry-after must be at least 1s: " + retryAfter);
        }
        Objects.requireNonNull(maxBodySize, "lanes.web.max-body-size");
        if (maxBodySize.toBytes() < 1 || maxBodySize.toBytes() > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("lanes.web.max-body-size must be between 1B and 2GB: " + maxBodySize);
        }
        if (tenantHeader != null && tenantHeader.isBlank()) {
            throw new IllegalArgumentException(
                    "lanes.web.tenant-header must not be blank when set: '" + tenantHeader + "'");
        }
    }
}
