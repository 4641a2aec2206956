-- Lanes schema, version 10: tracking processors split into segments (TrackingSettings.segments, PostgresCheckpointStore).
-- Applied by dev.lanes.postgres.Migrations inside one transaction, like every version.

-- One row per processor and segment, each with its own checkpoint and claim. A processor that saved its checkpoint
-- before this version becomes segment 0 of 1: the same checkpoint and claim, read as before.
-- paused: an operator paused the segment (lanes processors pause); its owner keeps the claim and reads nothing.
-- requested_checkpoint: a seek or reset an operator asked for (lanes processors seek|reset), done by the owner.
ALTER TABLE lanes_tracking_checkpoints
    ADD COLUMN segment              INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN segment_count        INTEGER NOT NULL DEFAULT 1,
    ADD COLUMN paused               BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN requested_checkpoint BIGINT CHECK (requested_checkpoint >= 0),
    ADD CONSTRAINT lanes_tracking_checkpoints_segment_ck
        CHECK (segment_count > 0 AND segment >= 0 AND segment < segment_count),
    DROP CONSTRAINT lanes_tracking_checkpoints_pk,
    ADD CONSTRAINT lanes_tracking_checkpoints_pk PRIMARY KEY (processor, segment);

-- The instances running a processor, each alive until its last heartbeat's lease ends (the database's clock): they
-- share the processor's segments, each claiming up to ceil(segments / instances alive).
CREATE TABLE lanes_tracking_instances (
    processor   TEXT        NOT NULL,
    owner       TEXT        NOT NULL,
    alive_until TIMESTAMPTZ NOT NULL,
    CONSTRAINT lanes_tracking_instances_pk PRIMARY KEY (processor, owner)
);

-- The stable hash of dev.lanes.eventsourcing.Segment, stored with every stream: the first 4 bytes of the MD5 of the
-- aggregate id, big-endian, as a signed 32-bit integer. A segment reader filters on its low bits.
ALTER TABLE lanes_event_streams
    ADD COLUMN segment_hash INTEGER GENERATED ALWAYS AS (('x' || substr(md5(aggregate_id), 1, 8))::bit(32)::int) STORED;
