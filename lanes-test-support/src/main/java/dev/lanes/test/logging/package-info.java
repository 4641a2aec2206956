/**
 * Log capture for tests that make the code under test fail on purpose: the expected error lines are asserted by the
 * test instead of scrolling past on the console of a green build.
 */
@NullMarked
package dev.lanes.test.logging;

import org.jspecify.annotations.NullMarked;
