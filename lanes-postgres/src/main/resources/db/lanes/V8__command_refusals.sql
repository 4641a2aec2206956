-- Lanes schema, version 8: commands refused by a business rule, remembered under their request id
-- (dev.lanes.postgres.PostgresEventStore#recordRefusal).
-- Applied by dev.lanes.postgres.Migrations inside one transaction; never edit an applied version, add a new version instead.

-- One row per request id whose command its aggregate refused (a CommandRejectedException from its handler): a resend of
-- the request id is answered with this refusal instead of being decided again against a state that moved on. The first
-- refusal stays (inserted with ON CONFLICT DO NOTHING). The gateway reads it in the same statement as the stream of the
-- request id (a stream of the same request id wins). Rows are kept as the streams are; delete old ones to forget them.
CREATE TABLE lanes_command_refusals (
    tenant_id      TEXT        NOT NULL,
    context_name   TEXT        NOT NULL,
    aggregate_name TEXT        NOT NULL,
    aggregate_id   TEXT        NOT NULL,
    request_id     TEXT        NOT NULL,
    command_id     TEXT        NOT NULL,
    error_type     TEXT        NOT NULL,
    reason         TEXT        NOT NULL,
    command_hash   TEXT,
    refused_at     TIMESTAMPTZ NOT NULL,
    CONSTRAINT lanes_command_refusals_pk
        PRIMARY KEY (tenant_id, context_name, aggregate_name, aggregate_id, request_id)
);
