-- Lanes schema, version 2: a global position for every stream (EventStore.readAll, tracking processors).
-- Applied by dev.lanes.postgres.Migrations inside one transaction, like every version.
--
-- A stream's position is the id of the transaction that appended it (pg_current_xact_id(), 64 bits with its epoch, so
-- it never wraps): one append is one transaction of one row. A reader returns only positions below the xmin of its
-- own snapshot: every transaction with a lower id has ended, and every transaction still to come gets a higher one, so
-- nothing can appear below a position once it was read (PostgresEventStore's class documentation gives the argument).

ALTER TABLE lanes_event_streams ADD COLUMN position BIGINT;

-- Streams stored before this version are numbered 1..n in the order they were created, per aggregate never before an
-- earlier version whatever the clocks of the instances said. Each was appended by a transaction of its own, so n is
-- below every transaction id still to come: new positions are above them.
UPDATE lanes_event_streams s
SET position = numbered.position
FROM (SELECT tenant_id, context_name, aggregate_name, aggregate_id, version,
             row_number() OVER (ORDER BY ordered_at, tenant_id, context_name, aggregate_name, aggregate_id, version)
                 AS position
      FROM (SELECT tenant_id, context_name, aggregate_name, aggregate_id, version,
                   max(created_at) OVER (PARTITION BY tenant_id, context_name, aggregate_name, aggregate_id
                                         ORDER BY version) AS ordered_at
            FROM lanes_event_streams) stamped) numbered
WHERE s.tenant_id = numbered.tenant_id AND s.context_name = numbered.context_name
  AND s.aggregate_name = numbered.aggregate_name AND s.aggregate_id = numbered.aggregate_id
  AND s.version = numbered.version;

-- The default also numbers streams that a writer of an older release appends during a rolling upgrade.
ALTER TABLE lanes_event_streams
    ALTER COLUMN position SET DEFAULT (pg_current_xact_id()::text::bigint),
    ALTER COLUMN position SET NOT NULL,
    ADD CONSTRAINT lanes_event_streams_position_uk UNIQUE (position);
