/**
 * A copy of the test kit's {@code dev.lanes.test.logging} (lanes-test), for lanes-core's own tests: the test kit
 * depends on lanes-core, so lanes-core's tests cannot depend on it. Change both; the test kit's {@code CoreCopyTest}
 * fails when they differ.
 */
@NullMarked
package dev.lanes.test.logging;

import org.jspecify.annotations.NullMarked;
