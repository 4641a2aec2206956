-- Lanes schema, version 6: saga replies as dead letters (dev.lanes.postgres.PostgresDeadLetterQueue#enqueueReply).
-- Applied by dev.lanes.postgres.Migrations inside one transaction; never edit an applied version, add a new version instead.

-- A letter for a saga reply whose handling failed for good (dev.lanes.processing.ParkedReply) is a row of its saga's
-- sequence for the aggregate whose event caused the command: its stream columns hold that cause stream, and these
-- columns what reproduces the reply (a retry sends the command again with its request id). All NULL for a parked
-- stream, all set for a reply. Existing rows are streams: nothing to fill in.
ALTER TABLE lanes_dead_letters
    -- the cause event's sequence within the stream (the reply function's SagaContext.event())
    ADD COLUMN reply_event_sequence INTEGER CHECK (reply_event_sequence > 0),
    -- the aggregate the command was sent to
    ADD COLUMN reply_tenant_id      TEXT,
    ADD COLUMN reply_context_name   TEXT,
    ADD COLUMN reply_aggregate_name TEXT,
    ADD COLUMN reply_aggregate_id   TEXT,
    ADD COLUMN reply_request_id     TEXT,
    -- the command, through the queue's EventSerializer, as a one-element array in the form of the events column
    ADD COLUMN reply_command        JSONB CHECK (jsonb_typeof(reply_command) = 'array'),
    ADD CONSTRAINT lanes_dead_letters_reply_whole CHECK (num_nulls(reply_event_sequence, reply_tenant_id,
        reply_context_name, reply_aggregate_name, reply_aggregate_id, reply_request_id, reply_command) IN (0, 7));
