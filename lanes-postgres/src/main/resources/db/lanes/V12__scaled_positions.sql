-- Lanes schema, version 12: a stream's position is its transaction's id times 65,536 plus its place in its batch.
-- Applied by dev.lanes.postgres.Migrations inside one transaction, like every version.
--
-- Until this version a stream appended in a batch took a subtransaction of its own for its position (a row in a
-- temporary table, in a PL/pgSQL block with an exception handler): a fifth to a quarter of the server's CPU per append.
-- Now a batch of n streams numbers them xid * 65536 + 1..n and a single append takes xid * 65536 (the column's
-- default). A reader returns positions below xmin * 65536 of its snapshot: every transaction with a lower id has
-- ended, and every id still to come is higher, so nothing can appear below a position once it was read.
--
-- The boundary: the id of this migration's transaction, taken once no append is in flight (the lock below). Every
-- position stored before is a transaction or subtransaction id (below the boundary, or above it only if its transaction
-- ended before the lock was granted); every position taken after is at least boundary * 65536. A reader keeps the
-- unscaled cut (below xmin) while a transaction older than the boundary is still open: a writer of an older release
-- that took its ids before this migration and appends after it stores unscaled positions below the boundary. A batch
-- of an older release that took its subtransaction ids after the boundary is refused by the check below (its positions
-- would land between the two ranges); that release then appends each stream alone, with the scaled default.
LOCK TABLE lanes_event_streams IN ACCESS EXCLUSIVE MODE;

CREATE TABLE lanes_position_scale (
    boundary BIGINT NOT NULL CHECK (boundary > 0)
);

DO $$
DECLARE
    migration_id BIGINT := pg_current_xact_id()::text::bigint;
BEGIN
    INSERT INTO lanes_position_scale (boundary) VALUES (migration_id);
    -- NOT VALID: the streams stored before keep their positions (see above); every stream stored from now on is checked
    EXECUTE format('ALTER TABLE lanes_event_streams ADD CONSTRAINT lanes_event_streams_position_scaled_ck'
                   ' CHECK (position < %s OR position >= %s) NOT VALID', migration_id, migration_id * 65536);
END$$;

ALTER TABLE lanes_event_streams ALTER COLUMN position SET DEFAULT (pg_current_xact_id()::text::bigint * 65536);
