-- What the PostgreSQL dead-letter queue's reload costs (PostgresDeadLetterQueue.reload, the query PARKED): it runs on
-- every assignment of partitions to a Kafka event consumer, once per processor, and reads every parked sequence.
-- Fills lanes_dead_letters with :sequences sequences of :per letters each (one processor), then times the query
-- three times, its rows sent to the client. Run from the repository's root on a scratch database, e.g.
--   psql -h HOST -U USER -d scratch -v sequences=10000 -v per=10 -f lanes-benchmarks/scripts/dead-letter-reload.sql
-- It drops and re-creates the two dead-letter tables of that database.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
DROP TABLE IF EXISTS lanes_dead_letters, lanes_dead_letter_retries;
\i lanes-postgres/src/main/resources/db/lanes/V4__dead_letters.sql
INSERT INTO lanes_dead_letters
SELECT 'Statements', 't', 'bank', 'account', 'acc-' || s, i, i, md5(s || '/' || i), 'r-' || s || '-' || i,
       'c-' || s || '-' || i, now(), '{}'::jsonb,
       '[{"sequence":1,"type":"bank.Deposited","payload":{"amount":10}}]'::jsonb,
       'java.lang.IllegalStateException: poisoned', 1, now()
FROM generate_series(1, :sequences) s, generate_series(1, :per) i;
VACUUM ANALYZE lanes_dead_letters;
SELECT count(*) AS letters, pg_size_pretty(pg_total_relation_size('lanes_dead_letters')) AS size
FROM lanes_dead_letters;
\timing on
\o /dev/null
SELECT DISTINCT processor, tenant_id, context_name, aggregate_name, aggregate_id FROM lanes_dead_letters;
SELECT DISTINCT processor, tenant_id, context_name, aggregate_name, aggregate_id FROM lanes_dead_letters;
SELECT DISTINCT processor, tenant_id, context_name, aggregate_name, aggregate_id FROM lanes_dead_letters;
