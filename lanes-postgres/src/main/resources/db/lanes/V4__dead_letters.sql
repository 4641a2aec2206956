-- Lanes schema, version 4: the sequenced dead letters of event processors (dev.lanes.postgres.PostgresDeadLetterQueue).
-- Applied by dev.lanes.postgres.Migrations inside one transaction; never edit an applied version, add a new version instead.
-- Versions 2 and 3 belong to the event store's global positions and tracking checkpoints (another change set);
-- this script depends on neither, so it applies before or after them.

-- One row per parked stream. A sequence is the rows of one processor and aggregate, ordered by sequence_index; its
-- head is the lowest index. The stream's columns are those of lanes_event_streams, so a letter is delivered again
-- exactly as it was published.
CREATE TABLE lanes_dead_letters (
    processor      TEXT        NOT NULL,
    tenant_id      TEXT        NOT NULL,
    context_name   TEXT        NOT NULL,
    aggregate_name TEXT        NOT NULL,
    aggregate_id   TEXT        NOT NULL,
    sequence_index BIGINT      NOT NULL CHECK (sequence_index > 0),
    version        INTEGER     NOT NULL CHECK (version > 0),
    stream_id      TEXT        NOT NULL,
    request_id     TEXT        NOT NULL,
    command_id     TEXT        NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    headers        JSONB       NOT NULL,
    events         JSONB       NOT NULL CHECK (jsonb_typeof(events) = 'array'),
    -- the last error (type: message), or that the stream waits behind its sequence's head
    reason         TEXT        NOT NULL,
    attempts       INTEGER     NOT NULL CHECK (attempts >= 0),
    parked_at      TIMESTAMPTZ NOT NULL,
    CONSTRAINT lanes_dead_letters_pk
        PRIMARY KEY (processor, tenant_id, context_name, aggregate_name, aggregate_id, sequence_index)
);

-- Retries asked for from outside the instances that run the processors (lanes parked retry|skip); an instance running
-- the processor takes each request once and retries the sequence in its lane.
CREATE TABLE lanes_dead_letter_retries (
    processor      TEXT        NOT NULL,
    tenant_id      TEXT        NOT NULL,
    context_name   TEXT        NOT NULL,
    aggregate_name TEXT        NOT NULL,
    aggregate_id   TEXT        NOT NULL,
    requested_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT lanes_dead_letter_retries_pk
        PRIMARY KEY (processor, tenant_id, context_name, aggregate_name, aggregate_id)
);
