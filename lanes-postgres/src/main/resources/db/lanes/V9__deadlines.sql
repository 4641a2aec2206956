-- Lanes schema, version 9: deadlines (PostgresDeadlineStore).
-- One row per scheduled deadline: its target aggregate, name, due time and the command (payload) it sends.
-- claimed_until hides a claimed row from other runners until then (runners claim with FOR UPDATE SKIP LOCKED);
-- a handled deadline is deleted.
CREATE TABLE lanes_deadlines (
    deadline_id    TEXT        NOT NULL,
    context_name   TEXT        NOT NULL,
    aggregate_name TEXT        NOT NULL,
    aggregate_id   TEXT        NOT NULL,
    tenant_id      TEXT        NOT NULL,
    name           TEXT        NOT NULL,
    due_at         TIMESTAMPTZ NOT NULL,
    payload_type   TEXT        NOT NULL,
    payload        JSONB       NOT NULL,
    claimed_until  TIMESTAMPTZ,
    CONSTRAINT lanes_deadlines_pk PRIMARY KEY (deadline_id)
);

CREATE INDEX lanes_deadlines_due ON lanes_deadlines (due_at);
CREATE INDEX lanes_deadlines_target ON lanes_deadlines (context_name, aggregate_name, aggregate_id, name);
