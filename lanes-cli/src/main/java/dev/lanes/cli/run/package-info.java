/**
 * What the bank and engine runs share while they go: latencies per stage, dispatcher metrics bound to HdrHistograms,
 * the sampler and its progress line, and waiting for the runtime's shutdown report.
 */
@NullMarked
package dev.lanes.cli.run;

import org.jspecify.annotations.NullMarked;
