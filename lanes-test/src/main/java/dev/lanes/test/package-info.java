/**
 * Contract suites for the SPIs (extend them to prove an implementation conforms) and test fixtures.
 */
@NullMarked
package dev.lanes.test;

import org.jspecify.annotations.NullMarked;
