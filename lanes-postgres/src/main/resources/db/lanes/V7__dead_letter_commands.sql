-- Lanes schema, version 7: commands as dead letters (dev.lanes.postgres.PostgresDeadLetterQueue#enqueueCommand).
-- Applied by dev.lanes.postgres.Migrations inside one transaction; never edit an applied version, add a new version instead.

-- A letter for a command whose retries ran out (dev.lanes.processing.CommandDeadLetters) is a row of the sequence of
-- the aggregate the command was sent to, under the processor name commands:<aggregate type>. It has no stream: its
-- version, stream_id and events are NULL, and its command column holds the command through the queue's EventSerializer
-- (a one-element array, in the form of the events column); request_id, command_id (the command's message id),
-- created_at and headers are the command's. Existing rows are streams or saga replies: nothing to fill in.
ALTER TABLE lanes_dead_letters
    ALTER COLUMN version DROP NOT NULL,
    ALTER COLUMN stream_id DROP NOT NULL,
    ALTER COLUMN events DROP NOT NULL,
    ADD COLUMN command JSONB CHECK (jsonb_typeof(command) = 'array'),
    -- a stream (or a saga reply, which also holds its cause stream), or a command: never both, never neither
    ADD CONSTRAINT lanes_dead_letters_stream_or_command CHECK (
        (num_nulls(version, stream_id, events) = 0 AND command IS NULL)
        OR (num_nulls(version, stream_id, events) = 3 AND command IS NOT NULL AND reply_command IS NULL));
