-- Lanes schema, version 3: checkpoints and claims of tracking processors (PostgresCheckpointStore).
-- One row per processor name: the last settled position saved, and which instance may read for it until when.
-- claimed_until is the database's clock (now() + lease), so the instances' clocks never have to agree.
CREATE TABLE lanes_tracking_checkpoints (
    processor     TEXT        NOT NULL,
    position      BIGINT      NOT NULL DEFAULT 0 CHECK (position >= 0),
    owner         TEXT,
    claimed_until TIMESTAMPTZ,
    CONSTRAINT lanes_tracking_checkpoints_pk PRIMARY KEY (processor)
);
