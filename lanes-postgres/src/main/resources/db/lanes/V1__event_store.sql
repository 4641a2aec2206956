-- Lanes schema, version 1: event streams and snapshots.
-- Applied by dev.lanes.postgres.Migrations inside one transaction; never edit an applied version (its checksum is
-- recorded in lanes_schema_version), add V2__... instead.

-- One row per appended stream (the events one command produced on one aggregate), its events a jsonb array of
-- {"sequence": n, "type": "<payload type>", "payload": {...}}.
-- An aggregate is identified by tenant, context, aggregate name and id, as AggregateId equality is.
CREATE TABLE lanes_event_streams (
    tenant_id      TEXT        NOT NULL,
    context_name   TEXT        NOT NULL,
    aggregate_name TEXT        NOT NULL,
    aggregate_id   TEXT        NOT NULL,
    version        INTEGER     NOT NULL CHECK (version > 0),
    stream_id      TEXT        NOT NULL,
    request_id     TEXT        NOT NULL,
    command_id     TEXT        NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    headers        JSONB       NOT NULL,
    events         JSONB       NOT NULL CHECK (jsonb_typeof(events) = 'array'),
    -- cross-instance guard 1: one stream per version (the store maps a violation to DuplicateAggregateIdException at
    -- version 1 and EventVersionConflictException later, by this name)
    CONSTRAINT lanes_event_streams_version_pk
        PRIMARY KEY (tenant_id, context_name, aggregate_name, aggregate_id, version),
    -- cross-instance guard 2: one stream per request id and aggregate (DuplicateRequestIdException)
    CONSTRAINT lanes_event_streams_request_uk
        UNIQUE (tenant_id, context_name, aggregate_name, aggregate_id, request_id)
);

-- The latest snapshot per aggregate; a save replaces it only with a higher version.
CREATE TABLE lanes_snapshots (
    tenant_id      TEXT        NOT NULL,
    context_name   TEXT        NOT NULL,
    aggregate_name TEXT        NOT NULL,
    aggregate_id   TEXT        NOT NULL,
    version        INTEGER     NOT NULL CHECK (version > 0),
    state_type     TEXT        NOT NULL,
    state          JSONB       NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    CONSTRAINT lanes_snapshots_pk PRIMARY KEY (tenant_id, context_name, aggregate_name, aggregate_id)
);
