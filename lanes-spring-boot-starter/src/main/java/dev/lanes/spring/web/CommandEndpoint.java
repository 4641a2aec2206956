package dev.lanes.spring.web;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.messaging.CommandMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The endpoint's work, the same for Spring MVC and WebFlux: finds the aggregate and command type, reads the body,
 * makes the message (the request id from {@code Idempotency-Key} or a fresh one, the command hash in {@link
 * CommandMessage#HASH_HEADER}), sends it through the gateway and turns the result or the failure into an {@link
 * Answer}. Stateless after construction and thread-safe; nothing here blocks (the gateway's {@code Mono} is returned).
 */
final class CommandEndpoint {
    /** The longest {@code Idempotency-Key} taken: it is stored with the command's events and indexed. */
    static final int MAX_KEY_LENGTH = 200;

    private final CommandGateway gateway;
    private final CommandCatalog catalog;
    private final JsonMapper json;
    private final LanesWebProperties properties;
    private final Problems problems;
    private final Map<String, Object> openApi;

    CommandEndpoint(CommandGateway gateway, CommandCatalog catalog, JsonMapper json, LanesWebProperties properties) {
        this.gateway = gateway;
        this.catalog = catalog;
        this.json = json;
        this.properties = properties;
        this.problems = new Problems(properties.retryAfter());
        this.openApi = OpenApiDocument.of(catalog, properties.basePath(), properties.tenantHeader());
    }

    /** The OpenAPI 3.1 document of the registered commands, as a JSON-ready map. */
    Map<String, Object> openApi() {
        return openApi;
    }

    /**
     * Sends one command; the answer never errors (a failure is a problem answer).
     *
     * @param key the {@code Idempotency-Key} header, if any
     * @param wait the {@code wait} parameter, if any
     * @param principal the authenticated principal's name, if any
     * @param tenant the value of the {@code lanes.web.tenant-header} header, if any
     * @param body the body, or {@code null} when it was larger than {@code lanes.web.max-body-size}
     */
    Mono<Answer> send(
            String aggregate,
            String id,
            String command,
            byte @Nullable [] body,
            @Nullable String key,
            @Nullable String wait,
            @Nullable String principal,
            @Nullable String tenant) {
        boolean generated = key == null || key.isBlank();
        String requestId = key == null || generated ? UUID.randomUUID().toString() : key.strip();
        if (requestId.length() > MAX_KEY_LENGTH || !requestId.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            return Mono.just(problems.badKey(LanesWeb.IDEMPOTENCY_KEY + " must be 1 to " + MAX_KEY_LENGTH
                    + " visible ASCII characters without spaces; got " + requestId.length() + " characters"));
        }
        try {
            CommandCatalog.Aggregate target = catalog.aggregate(aggregate);
            Class<?> type = CommandCatalog.command(target, command);
            WaitStage stage = stage(wait);
            if (body == null) {
                throw EndpointException.tooLarge(properties.maxBodyBytes());
            }
            Object payload = read(type, command, body);
            String tenantId = tenant(tenant);
            AggregateId aggregateId =
                    tenantId == null ? AggregateId.of(target.type(), id) : AggregateId.of(target.type(), id, tenantId);
            CommandMessage message = CommandMessage.of(aggregateId, payload, requestId)
                    .withHeader(CommandMessage.HASH_HEADER, hash(command, payload));
            Duration timeout = properties.timeout();
            Mono<CommandResult> sending =
                    timeout == null ? gateway.send(message, stage) : gateway.send(message, stage, timeout);
            return sending.contextWrite(context -> {
                        Context with =
                                principal == null ? context : context.put(LanesWeb.PRINCIPAL_CONTEXT_KEY, principal);
                        return tenantId == null ? with : with.put(LanesWeb.TENANT_CONTEXT_KEY, tenantId);
                    })
                    .map(result -> ok(target, command, result, generated))
                    .onErrorResume(error -> Mono.just(problems.answer(error, requestId, generated)));
        } catch (RuntimeException refused) {
            return Mono.just(problems.answer(refused, requestId, generated));
        }
    }

    /** The request's tenant when {@code lanes.web.tenant-header} is set; a request without one is refused. */
    private @Nullable String tenant(@Nullable String tenant) {
        String header = properties.tenantHeader();
        if (header == null) {
            return null;
        }
        if (tenant == null || tenant.isBlank()) {
            throw EndpointException.badRequest(
                    "missing-tenant",
                    "Missing tenant",
                    "The request has no " + header + " header (lanes.web.tenant-header)");
        }
        return tenant.strip();
    }

    /** The largest body taken, in bytes: a transport reads at most one more to tell a larger one. */
    int maxBodyBytes() {
        return properties.maxBodyBytes();
    }

    /** The header that names the tenant, or {@code null} when commands go to the default tenant. */
    @Nullable
    String tenantHeader() {
        return properties.tenantHeader();
    }

    private WaitStage stage(@Nullable String wait) {
        if (wait == null || wait.isBlank()) {
            return properties.defaultWait();
        }
        try {
            return WaitStage.valueOf(wait.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException unknown) {
            throw EndpointException.badRequest(
                    "bad-wait",
                    "Unknown wait stage",
                    "wait must be one of " + Arrays.toString(WaitStage.values()) + ": '" + wait + "'");
        }
    }

    private Object read(Class<?> type, String command, byte[] body) {
        if (body.length == 0) {
            throw EndpointException.badRequest(
                    "unreadable-command", "Unreadable command", command + " needs a JSON body (an object)");
        }
        ObjectReader reader = json.readerFor(type)
                .with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .with(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        try {
            Object payload = reader.readValue(body);
            if (payload == null) {
                throw EndpointException.badRequest(
                        "unreadable-command", "Unreadable command", command + " needs a JSON object, not null");
            }
            return payload;
        } catch (JacksonException | IllegalArgumentException | NullPointerException unreadable) {
            // the record's own checks (compact constructors) surface as Jackson exceptions or as themselves
            throw EndpointException.badRequest(
                    "unreadable-command",
                    "Unreadable command",
                    "The body is not a valid " + command + ": " + unreadable.getMessage());
        }
    }

    /** SHA-256 of the command's name and its payload as Jackson writes it: equal for equal commands. */
    private String hash(String command, Object payload) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(command.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) '\n');
            digest.update(json.writeValueAsBytes(payload));
            return "sha256:" + HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException missing) {
            throw new IllegalStateException("the JVM has no SHA-256", missing);
        }
    }

    private static Answer ok(CommandCatalog.Aggregate target, String command, CommandResult result, boolean generated) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("requestId", result.requestId());
        body.put("requestIdGenerated", generated);
        body.put("commandId", result.commandId());
        body.put("aggregate", target.type().toString());
        body.put("aggregateId", result.aggregateId().id());
        body.put("command", command);
        body.put("stage", result.stage().name());
        body.put("version", result.version());
        List<Map<String, Object>> events = result.events().stream()
                .map(event -> Map.of("type", event.getClass().getSimpleName(), "event", event))
                .toList();
        body.put("events", events);
        return new Answer(200, Map.of(LanesWeb.IDEMPOTENCY_KEY, result.requestId()), body, false);
    }
}
