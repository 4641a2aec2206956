/**
 * jcstress checks of Lanes' concurrency contracts. Each {@code @JCStressTest} class documents its result codes; the
 * codes shared by the scheduler supplier checks are in {@link dev.lanes.jcstress.Attempt}.
 */
@NullMarked
package dev.lanes.jcstress;

import org.jspecify.annotations.NullMarked;
