-- Lanes schema, version 5: the ownership epochs of the partitions an event bus assigns to instances
-- (dev.lanes.postgres.PostgresDeadLetterQueue#claim). Applied by dev.lanes.postgres.Migrations inside one transaction;
-- never edit an applied version, add a new version instead.

-- One row per (consumer group, topic, partition): the epoch of its latest assignment, raised by one at each, and the
-- instance that took it. A dead letter parked for a stream of that partition is stored only while the epoch its
-- instance was assigned with is still this one (checked under a FOR SHARE lock of this row, in the parking's
-- transaction), so an instance that lost the partition parks nothing more for it. Rows are never deleted.
CREATE TABLE lanes_partition_owners (
    consumer_group  TEXT        NOT NULL,
    topic           TEXT        NOT NULL,
    partition_index INTEGER     NOT NULL CHECK (partition_index >= 0),
    epoch           BIGINT      NOT NULL CHECK (epoch > 0),
    owner           TEXT        NOT NULL,
    claimed_at      TIMESTAMPTZ NOT NULL,
    CONSTRAINT lanes_partition_owners_pk PRIMARY KEY (consumer_group, topic, partition_index)
);
