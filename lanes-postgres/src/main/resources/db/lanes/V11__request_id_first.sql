-- Lanes schema, version 11: the request-id key of lanes_event_streams leads with the request id.
-- Applied by dev.lanes.postgres.Migrations inside one transaction, like every version.

-- Version 1 declared it on (tenant_id, context_name, aggregate_name, aggregate_id, request_id): the first four columns
-- of the version key too. Where the statistics said an aggregate has about one stream (a young table, or many
-- short-lived aggregates beside a few long-lived ones), PostgreSQL priced the two keys alike for a query that fixes the
-- aggregate, and through the other one it read the aggregate's whole history: the previous-version check of an append
-- through this key, a request-id lookup through the version key. Led by the request id, this key serves the lookups
-- (PostgresEventStore reads a request id's streams by the request id alone, then matches the aggregate) and nothing
-- else; the version checks have the version key to themselves. Rebuilding the index reads the table once, under the
-- lock ALTER TABLE takes: plan the upgrade of a large table for it.
ALTER TABLE lanes_event_streams
    DROP CONSTRAINT lanes_event_streams_request_uk,
    ADD CONSTRAINT lanes_event_streams_request_uk
        UNIQUE (request_id, tenant_id, context_name, aggregate_name, aggregate_id);
