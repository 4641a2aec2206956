package dev.lanes.spring.web;

/** The names the HTTP command endpoint uses on the wire and in a command's headers. */
public final class LanesWeb {
    /** The request header that carries the request id (idempotency key); echoed in every answer. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    /** The query parameter naming the stage to wait for: {@code SENT}, {@code PROCESSED} or {@code PROJECTED}. */
    public static final String WAIT = "wait";

    /** The command header in which {@link PrincipalInterceptor} stores the authenticated principal's name. */
    public static final String PRINCIPAL_HEADER = "lanes.principal";

    /**
     * The key under which the endpoint puts the authenticated principal's name in the send's Reactor context, for
     * dispatch interceptors to read.
     */
    public static final String PRINCIPAL_CONTEXT_KEY = "lanes.web.principal";

    /**
     * The key under which the endpoint puts the request's tenant (from {@code lanes.web.tenant-header}, when set) in
     * the send's Reactor context, for dispatch interceptors to read; the tenant is also the aggregate id's tenant.
     */
    public static final String TENANT_CONTEXT_KEY = "lanes.web.tenant";

    private LanesWeb() {}
}
