/**
 * What the lanes of the event side and the command side share about a message in its lane: the attempts it took and
 * whether it was set aside in a dead-letter queue.
 *
 * <p><b>Not an API.</b> Only Lanes' own packages may use these types (marked {@link dev.lanes.internal.Internal}, checked by {@code ArchitectureTest}); they are
 * public only because several Lanes packages share them, and may change or disappear in any release.
 */
@Internal
@NullMarked
package dev.lanes.internal.exchange;

import dev.lanes.internal.Internal;
import org.jspecify.annotations.NullMarked;
